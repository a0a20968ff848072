/**
 * The Checks: the project's own deterministic commands, run by us through the Workspace port as
 * argv arrays (never a shell line). Uncommitted work fails them: what is not committed would not
 * reach the pull request, so passing it would be a lie.
 */
import type { RunEnv, Step, TicketCtx } from "./context";
import { OK, elapsed, endStage, errorText, fail, startStage } from "./context";
import { formatMinutes } from "./naming";

const EVIDENCE_TAIL = 6_000;

function tail(text: string): string {
  return text.length <= EVIDENCE_TAIL ? text : `…${text.slice(-EVIDENCE_TAIL)}`;
}

export async function runChecks(env: RunEnv, ctx: TicketCtx, label = "checks"): Promise<Step> {
  const { workspace } = env.deps;
  const lane = ctx.lane;
  if (!lane) return fail("final", label, "no worktree to run the Checks in");
  const started = await startStage(env, ctx, label);
  const finish = async (outcome: string, step: Step): Promise<Step> => {
    await endStage(env, ctx, { stage: label, outcome, turns: null, durationMs: elapsed(env, started) });
    return step;
  };
  try {
    if (!(await workspace.isClean(lane))) {
      return finish(
        "❌ uncommitted work",
        fail(
          "fixable",
          label,
          "the worktree has uncommitted changes: a Stage must commit its work",
          "Uncommitted changes were found in the worktree before the Checks ran. Commit them (or discard them) so the branch holds the whole change.",
        ),
      );
    }
  } catch (error) {
    return finish("❌ could not read the worktree", fail("final", label, `could not inspect the worktree: ${errorText(error)}`));
  }
  const timeoutMs = env.config.checkTimeoutMinutes * 60_000;
  for (const command of env.config.checks) {
    if (ctx.silenced) return fail("yield", label, "stopped");
    const shown = command.join(" ");
    let result;
    try {
      result = await workspace.runCheck(lane, command, timeoutMs, ctx.abort.signal);
    } catch (error) {
      return finish(`❌ \`${shown}\` could not run`, fail("fixable", label, `\`${shown}\` could not run: ${errorText(error)}`));
    }
    if (result.timedOut) {
      return finish(
        `⌛ \`${shown}\` timed out`,
        fail("fixable", label, `\`${shown}\` did not finish within ${formatMinutes(env.config.checkTimeoutMinutes)} and was stopped`, tail(result.output)),
      );
    }
    if (result.exitCode !== 0) {
      return finish(
        `❌ \`${shown}\` exited ${result.exitCode ?? "by a signal"}`,
        fail("fixable", label, `\`${shown}\` exited ${result.exitCode ?? "by a signal"}`, tail(result.output)),
      );
    }
  }
  return finish(`✅ ${env.config.checks.length} passed`, OK);
}
