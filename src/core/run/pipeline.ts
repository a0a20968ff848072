/**
 * One ticket through the Stages, in order: setup -> implement -> Checks -> verify -> (one fix) ->
 * Landing (rebase, PR, CI, merge) -> after the merge. Any other way out is an ending: Hand-off,
 * Release, or a silent yield. An unexpected error becomes a Hand-off, never a crashed Run.
 */
import { runChecks } from "./checks";
import { fix, implement, verify } from "./code-stages";
import type { RunEnv, Step, StepFailure, TicketCtx } from "./context";
import { errorText } from "./context";
import { afterMerge, handOff, release } from "./endings";
import { limitStep } from "./github-limit";
import { resetTime } from "./naming";
import { land } from "./landing";
import { setUpLane } from "./resume";
import { stillHolds, stoodDownWords } from "./stages";

export type TicketEnding =
  /**
   * `cleanup`: starts the merged ticket's end-of-ticket writes and clean-up, off the Lane's path (ADR
   * 0485), when the Lanes say (ADR 0505); the promise it returns never rejects.
   */
  | { kind: "merged"; pullRequest: number | null; line: string; cleanup?: () => Promise<void> }
  | { kind: "handed-off"; stage: string; line: string }
  | { kind: "released"; stage: string; line: string }
  | { kind: "yielded"; line: string };

async function conclude(env: RunEnv, ctx: TicketCtx, failure: StepFailure): Promise<TicketEnding> {
  if (failure.kind === "yield" || ctx.silenced) return { kind: "yielded", line: stoodDownWords(ctx, "stopped without writing: an earlier claim was found") };
  if (failure.kind === "rate-limited" && failure.by === "github") {
    await release(env, ctx, failure.stage);
    return { kind: "released", stage: failure.stage, line: `at ${failure.stage}: ${failure.line}` };
  }
  if (failure.kind === "rate-limited") {
    await release(env, ctx, failure.stage);
    const when = resetTime(ctx.limitResetsAt ?? env.flags.limitResetsAt);
    const resets = when ? ` (resets ${when})` : "";
    return { kind: "released", stage: failure.stage, line: `rate limited at ${failure.stage}${resets}` };
  }
  if (failure.kind === "unavailable") {
    // Not this ticket's fault: released with its work kept, and the Run takes nothing more (ADR-0141).
    const why = failure.unavailable ?? { reason: "provider-down" as const, detail: failure.line };
    env.flags.unavailable ??= { reason: why.reason, stage: failure.stage, ticket: ctx.ticket, detail: why.detail };
    await release(env, ctx, failure.stage, "the agent is unavailable");
    return { kind: "released", stage: failure.stage, line: `at ${failure.stage}: ${failure.line}` };
  }
  const budgetNote = ctx.fixUsed ? " (after the fix budget was used)" : "";
  await handOff(env, ctx, { stage: failure.stage, line: failure.line, evidence: failure.evidence, state: "keep" });
  return { kind: "handed-off", stage: failure.stage, line: `at ${failure.stage}: ${failure.line}${budgetNote}` };
}

async function pipeline(env: RunEnv, ctx: TicketCtx): Promise<TicketEnding> {
  const setup = await setUpLane(env, ctx);
  if (!setup.ok) {
    await handOff(env, ctx, setup.handoff);
    return { kind: "handed-off", stage: "setup", line: `at setup: ${setup.handoff.line}` };
  }
  if (!ctx.implemented) {
    const done = await implement(env, ctx);
    if (!done.ok) return conclude(env, ctx, done.failure);
  }
  for (;;) {
    let step: Step = await runChecks(env, ctx);
    if (step.ok) step = await verify(env, ctx);
    if (step.ok) {
      // A pull request is a holder's write: a Run taken over while it was frozen opens none.
      if (!(await stillHolds(env, ctx, "the pull request"))) return conclude(env, ctx, { kind: "yield", stage: "landing", line: "", evidence: "" });
      const landed = await land(env, ctx);
      if (landed.ok && "merged" in landed) {
        // The end-of-ticket writes and the clean-up go on off the Lane's path (ADR 0485), started by the Lanes (ADR 0505).
        return { kind: "merged", pullRequest: landed.merged.number, line: `PR #${landed.merged.number}`, cleanup: () => afterMerge(env, ctx) };
      }
      step = landed;
    }
    if (step.ok) continue;
    let failure = step.failure;
    if (failure.kind === "fixable" && !ctx.fixUsed) {
      const fixed = await fix(env, ctx, failure);
      if (fixed.ok) continue;
      failure = fixed.failure;
    }
    return conclude(env, ctx, failure);
  }
}

export async function runTicket(env: RunEnv, ctx: TicketCtx): Promise<TicketEnding> {
  try {
    return await pipeline(env, ctx);
  } catch (error) {
    const limited = limitStep(env, "run", error);
    if (limited && !limited.ok && !ctx.silenced) return conclude(env, ctx, limited.failure);
    env.deps.log.error(`#${ctx.ticket}: unexpected error; handing it off`, { error: errorText(error) });
    if (ctx.silenced) return { kind: "yielded", line: "stopped" };
    try {
      await handOff(env, ctx, {
        stage: "run",
        line: `an unexpected error stopped the pipeline: ${errorText(error)}`,
        evidence: "",
        state: ctx.lane || ctx.resumedFrom ? "keep" : "remove",
      });
    } catch (again) {
      env.deps.log.error(`#${ctx.ticket}: the hand-off failed too`, { error: errorText(again) });
    }
    return { kind: "handed-off", stage: "run", line: `unexpected error: ${errorText(error)}` };
  }
}
