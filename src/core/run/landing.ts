/**
 * The Landing: rebase on the freshly fetched base (one conflict Stage if it stops), push, open or
 * update the pull request, wait for CI, merge guarded by the head sha (ADR 0181). Lanes do all of
 * it side by side except the merge: merges go in the order the Landings started, and a ticket whose
 * files a neighbour's merge touched is rebased and tested again before it merges.
 */
import { GitHubRateLimit } from "../errors";
import { inertReferences } from "../inert-text";
import type { PullRequestInfo } from "../../ports/tracker";
import { runChecks } from "./checks";
import type { RunEnv, Step, TicketCtx } from "./context";
import { OK, elapsed, endStage, errorText, fail, recordState, startStage, yielded } from "./context";
import { limitStep } from "./github-limit";
import { formatMinutes } from "./naming";
import { prBody } from "./pr-body";
import { conflictPrompt } from "./prompts";
import { codeAnswerSchema } from "./stage-answers";
import { askHolds, notTheTicketsFault, outcomeText, pushWork, runAgentStage, stillHolds } from "./stages";

export type LandingResult = Step | { ok: true; merged: PullRequestInfo };

async function rebase(env: RunEnv, ctx: TicketCtx): Promise<Step> {
  const { workspace, log } = env.deps;
  const lane = ctx.lane!;
  const started = await startStage(env, ctx, "rebase");
  let result: "clean" | "conflict" | "up-to-date";
  try {
    await workspace.fetchBase(env.base);
    result = await workspace.rebaseOnto(lane, env.base);
  } catch (error) {
    await endStage(env, ctx, { stage: "rebase", outcome: "❌ failed", turns: null, durationMs: elapsed(env, started) });
    return fail("final", "rebase", `could not rebase onto ${env.base}: ${errorText(error)}`);
  }
  await endStage(env, ctx, { stage: "rebase", outcome: result === "conflict" ? "⚠ conflict" : `✅ ${result}`, turns: null, durationMs: elapsed(env, started) });
  if (result !== "conflict") return OK;

  // One conflict Stage, judged by the worktree's state rather than by what the agent says.
  let files: string[] = [];
  try {
    files = await workspace.conflictedFiles(lane);
  } catch (error) {
    log.warn(`#${ctx.ticket}: could not list the conflicted files`, { error: errorText(error) });
  }
  const run = await runAgentStage(env, ctx, "conflict", conflictPrompt(ctx.issue, ctx.branch, env.base, files), codeAnswerSchema);
  if (ctx.silenced) return yielded("conflict");
  // The limit or the environment stopped it: a Release or a stopped Run, not the ticket's fault.
  const stopped = notTheTicketsFault("conflict", run);
  let unfinished = false;
  let clean = false;
  try {
    // The agent may have finished the rebase itself, or only resolved the files: continue it for
    // the agent, and what is still stopped after that is unresolved (aborted back to the tip).
    if (stopped === null && (await workspace.rebaseInProgress(lane))) {
      await workspace.continueRebase(lane);
    }
    unfinished = await workspace.abortRebaseInProgress(lane);
    clean = await workspace.isClean(lane);
  } catch (error) {
    log.warn(`#${ctx.ticket}: could not inspect the worktree after the conflict Stage`, { error: errorText(error) });
  }
  const resolved = !unfinished && clean && stopped === null;
  await endStage(env, ctx, {
    stage: "conflict",
    outcome: resolved ? "✅ resolved" : stopped ? outcomeText(run.result.outcome) : "❌ unresolved",
    turns: run.result.turns,
    durationMs: run.result.durationMs,
  });
  if (stopped) return stopped;
  if (!resolved) {
    const why = unfinished
      ? "the rebase was still stopped after the conflict Stage (aborted back to the branch tip)"
      : "the conflict Stage left uncommitted changes";
    return fail("final", "conflict", `rebase onto ${env.base} stopped with conflicts and ${why}`, run.problem ?? run.result.text);
  }
  // Every Stage that commits pushes at once (docs/endings.md); then the code changed under the Checks'
  // feet, so they grade it again before it lands.
  const pushed = await pushWork(env, ctx, "conflict");
  if (!pushed.ok) return pushed;
  return runChecks(env, ctx, "checks");
}

async function ensurePullRequest(env: RunEnv, ctx: TicketCtx): Promise<{ pr: PullRequestInfo } | { step: Step }> {
  const { tracker } = env.deps;
  const started = await startStage(env, ctx, "pr");
  const done = async (outcome: string) => endStage(env, ctx, { stage: "pr", outcome, turns: null, durationMs: elapsed(env, started) });
  // A pull request is a holder's write. Asked again here, next to the write: the rebase and push
  // before it can outlast a lease, and a Run frozen there has been taken over when it wakes. Asked
  // beside the pull request's own read (ADR 0483): two reads that wait on nothing of each other.
  const holds = askHolds(env, ctx);
  try {
    let pr = ctx.pullRequest ? await tracker.getPullRequest(ctx.pullRequest) : null;
    if (!pr || (pr.state === "closed" && !pr.merged && pr.head !== ctx.branch)) pr = await tracker.findPullRequest(ctx.branch);
    const title = inertReferences(ctx.title ?? ctx.issue.title);
    const body = prBody({ ticket: ctx.ticket, summary: null, graded: ctx.graded });
    // The claim stood down beside the read: nothing more is written, whatever the pull request's state.
    if (pr && (pr.merged || pr.state === "closed") && (await holds) === "yield") {
      await stillHolds(env, ctx, "the pull request", holds);
      return { step: yielded("pr") };
    }
    if (pr?.merged) {
      await done(`✅ #${pr.number} already merged`);
      return { pr };
    }
    if (pr && pr.state === "closed") {
      await done(`❌ #${pr.number} closed`);
      return {
        step: fail(
          "final",
          "pr",
          `pull request #${pr.number} was closed by a person; closing it said the work should not go on. Reopen it and relabel the Ticket ready-for-agent to carry on.`,
        ),
      };
    }
    if (!(await stillHolds(env, ctx, "the pull request", holds))) return { step: yielded("pr") };
    if (pr) {
      pr = await tracker.updatePullRequest(pr.number, { title, body });
      if (pr.draft) {
        // A draft often runs no workflows, and the CI wait would read "no checks" (docs/endings.md).
        await tracker.setDraft(pr.number, false);
        const again = await tracker.getPullRequest(pr.number);
        if (!again || again.draft || again.state !== "open") {
          await done(`❌ #${pr.number} stays draft`);
          return { step: fail("final", "pr", `pull request #${pr.number} will not come out of draft`) };
        }
        pr = again;
      }
    } else {
      pr = await tracker.createPullRequest({ head: ctx.branch, base: env.base, title, body, draft: false });
    }
    if (ctx.pullRequest !== pr.number) {
      ctx.pullRequest = pr.number;
      await recordState(env, ctx, "pull request opened");
    }
    await done(`✅ #${pr.number}`);
    return { pr };
  } catch (error) {
    await done("❌ failed");
    return { step: limitStep(env, "pr", error) ?? fail("final", "pr", `could not open or update the pull request: ${errorText(error)}`) };
  }
}

/** CI: success lands; failure is coverable by the Fix budget; no checks, a timeout or a conflict is a Hand-off. */
async function awaitCi(env: RunEnv, ctx: TicketCtx, pr: PullRequestInfo): Promise<Step> {
  const { tracker, clock, workspace } = env.deps;
  const ci = env.config.ci;
  const started = await startStage(env, ctx, "ci");
  const done = async (outcome: string, step: Step) => {
    await endStage(env, ctx, { stage: "ci", outcome, turns: null, durationMs: elapsed(env, started) });
    return step;
  };
  let sha = pr.headSha;
  try {
    sha = await workspace.headSha(ctx.lane!);
  } catch {
    // The PR's head is the same commit after a successful push.
  }
  for (;;) {
    if (ctx.silenced) return yielded("ci");
    // Polls keep a fixed cadence, start to start (ADR 0485): the wait after a read is the interval
    // less the read's own time, so a read never comes sooner than `pollSeconds` after the last one.
    const polled = clock.now().getTime();
    try {
      // The pull request and its checks in one round trip; the conflict is still judged first.
      const [current, report] = await Promise.all([tracker.getPullRequest(pr.number), tracker.ciReport(sha)]);
      if (current?.mergeable === false) return done("❌ conflicting", fail("final", "ci", `pull request #${pr.number} conflicts with ${env.base}`));
      if (report.state === "success") return done("✅ passed", OK);
      if (report.state === "failure") return done("❌ failed", fail("fixable", "ci", "CI failed", report.details.join("\n")));
      if (report.state === "none" && !ci.required) return done("– no checks (CI gate off)", OK);
      const waited = elapsed(env, started);
      if (report.state === "none" && waited >= ci.graceMinutes * 60_000) {
        return done(
          "❌ no checks",
          fail(
            "final",
            "ci",
            `no CI checks reported within ${formatMinutes(ci.graceMinutes)} of the pull request; GitHub starts no workflow for a push made with a workflow's own GITHUB_TOKEN, so a Run in GitHub Actions needs an App token or a personal access token (docs/actions.md); if this repository has no CI, set "ci": { "required": false } in ticket-runner.json`,
          ),
        );
      }
      if (waited >= ci.timeoutMinutes * 60_000) {
        return done("⌛ timed out", fail("final", "ci", `CI did not finish within ${formatMinutes(ci.timeoutMinutes)}`, report.details.join("\n")));
      }
    } catch (error) {
      // GitHub's limit resetting before the CI timeout is waited out; one past it releases the ticket.
      if (error instanceof GitHubRateLimit) {
        const left = ci.timeoutMinutes * 60_000 - elapsed(env, started);
        const wait = error.resetAt.getTime() - clock.now().getTime();
        if (wait >= left) return done("⏸ rate limited", limitStep(env, "ci", error)!);
        env.deps.log.warn(`#${ctx.ticket}: ${error.message}; waiting for it before reading CI again`);
        await clock.sleep(Math.max(0, wait), ctx.abort.signal);
        continue;
      }
      env.deps.log.warn(`#${ctx.ticket}: could not read CI for #${pr.number}; trying again`, { error: errorText(error) });
      if (elapsed(env, started) >= ci.timeoutMinutes * 60_000)
        return done("⌛ timed out", fail("final", "ci", `CI could not be read within ${formatMinutes(ci.timeoutMinutes)}: ${errorText(error)}`));
    }
    await clock.sleep(Math.max(0, polled + ci.pollSeconds * 1000 - clock.now().getTime()), ctx.abort.signal);
  }
}

async function merge(env: RunEnv, ctx: TicketCtx, pr: PullRequestInfo, held: Promise<boolean>): Promise<LandingResult> {
  // Merging is the holder's: a Run taken over while it waited for CI merges nothing.
  if (!(await held)) return yielded("merge");
  const started = await startStage(env, ctx, "merge");
  try {
    const sha = await env.deps.workspace.headSha(ctx.lane!);
    // A squash commit's message would default to the agent's commit messages, and a closing keyword
    // there closes issues when it lands; the title and message are ours, made inert (ADR 0161).
    const title = `${inertReferences(ctx.title ?? ctx.issue.title)} (#${pr.number})`;
    const message = env.mergeMethod === "squash" ? `Ticket #${ctx.ticket}, merged by Ticket Runner.` : undefined;
    const result = await env.deps.tracker.mergePullRequest(pr.number, { sha, method: env.mergeMethod, title, base: env.base, ...(message ? { message } : {}) });
    if (result.merged) ctx.mergedHead = sha;
    if (!result.merged) {
      await endStage(env, ctx, { stage: "merge", outcome: "❌ refused", turns: null, durationMs: elapsed(env, started) });
      // A rule of the base (required reviews or checks) is named with what a person changes (ADR 0241).
      const why = result.refusal ? `${result.refusal.cause}. To fix: ${result.refusal.fix}` : (result.reason ?? "no reason given");
      return fail("final", "merge", `GitHub did not merge #${pr.number}: ${why}`);
    }
    await endStage(env, ctx, { stage: "merge", outcome: `✅ merged (${env.mergeMethod})`, turns: null, durationMs: elapsed(env, started) });
    return { ok: true, merged: { ...pr, merged: true, state: "closed" } };
  } catch (error) {
    await endStage(env, ctx, { stage: "merge", outcome: "❌ failed", turns: null, durationMs: elapsed(env, started) });
    return limitStep(env, "merge", error) ?? fail("final", "merge", `could not merge #${pr.number}: ${errorText(error)}`);
  }
}

/** Why the branch is not on the remote, with GitHub's reason and its fix when GitHub gave one. */
function pushFailure(ctx: TicketCtx): string {
  const refused = ctx.lastPushRefusal;
  const what = `the branch \`${ctx.branch}\` could not be pushed to the remote`;
  return refused ? `${what}: ${refused.cause}. To fix: ${refused.fix}` : what;
}

/** The start of a Landing: rebase, push, pull request. */
async function prepare(env: RunEnv, ctx: TicketCtx): Promise<{ pr: PullRequestInfo } | { step: Step }> {
  const rebased = await rebase(env, ctx);
  if (!rebased.ok) return { step: rebased };
  const pushed = await pushWork(env, ctx, "rebase");
  if (!pushed.ok) return { step: pushed };
  if (!ctx.lastPushOk) return { step: fail("final", "push", pushFailure(ctx)) };
  return ensurePullRequest(env, ctx);
}

/**
 * At its turn to merge: when a neighbour's merge changed files this ticket changes, rebase onto it,
 * push and wait for CI again; otherwise GitHub merges it onto the moved base as it is. `held` is
 * whether the claim still holds for the merge: asked beside the base's fetch when the ticket merges
 * as it is (one round trip less, ADR 0485), asked again after a second CI wait.
 */
async function catchUp(env: RunEnv, ctx: TicketCtx, pr: PullRequestInfo): Promise<{ step: Step; held: Promise<boolean> }> {
  const { workspace, log } = env.deps;
  const heldNow = stillHolds(env, ctx, "the merge");
  try {
    await workspace.fetchBase(env.base);
    if (!(await workspace.baseTouches(ctx.lane!, env.base))) return { step: OK, held: heldNow };
  } catch (error) {
    log.warn(`#${ctx.ticket}: could not tell whether ${env.base} moved under it; rebasing again`, { error: errorText(error) });
  }
  // A claim lost meanwhile: no rebase, no push, no second CI wait.
  if (!(await heldNow)) return { step: yielded("merge"), held: heldNow };
  const step = await relandOnBase(env, ctx, pr);
  return { step, held: step.ok ? stillHolds(env, ctx, "the merge") : Promise.resolve(false) };
}

async function relandOnBase(env: RunEnv, ctx: TicketCtx, pr: PullRequestInfo): Promise<Step> {
  const rebased = await rebase(env, ctx);
  if (!rebased.ok) return rebased;
  const pushed = await pushWork(env, ctx, "rebase");
  if (!pushed.ok) return pushed;
  if (!ctx.lastPushOk) return fail("final", "push", pushFailure(ctx));
  return awaitCi(env, ctx, pr);
}

export async function land(env: RunEnv, ctx: TicketCtx): Promise<LandingResult> {
  if (!ctx.lane) return fail("final", "rebase", "no worktree to land from");
  const seat = env.train.join();
  try {
    const opened = await prepare(env, ctx);
    if ("step" in opened) return opened.step;
    if (opened.pr.merged) return { ok: true, merged: opened.pr };
    const ci = await awaitCi(env, ctx, opened.pr);
    if (!ci.ok) return ci;
    await seat.turn();
    if (ctx.silenced) return yielded("merge");
    const fresh = await catchUp(env, ctx, opened.pr);
    if (!fresh.step.ok) return fresh.step;
    return await merge(env, ctx, opened.pr, fresh.held);
  } finally {
    seat.leave();
  }
}
