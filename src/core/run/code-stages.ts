/** The agent Stages of the pipeline: implement, verify and fix. */
import type { GradedCriterion, RunEnv, Step, StepFailure, TicketCtx } from "./context";
import { OK, endStage, errorText, fail, recordState, stateSnapshot, yielded } from "./context";
import { fixPrompt, implementPrompt, verifyPrompt } from "./prompts";
import { codeAnswerSchema, verifyAnswerSchema } from "./stage-answers";
import type { Verdict } from "./stage-answers";
import { notTheTicketsFault, outcomeText, pushWork, refusedText, runAgentStage, safeHead } from "./stages";

async function commitsAhead(env: RunEnv, ctx: TicketCtx): Promise<number> {
  if (!ctx.lane) return 0;
  try {
    return await env.deps.workspace.commitsAhead(ctx.lane, env.base);
  } catch (error) {
    env.deps.log.warn(`#${ctx.ticket}: could not count the branch's commits`, { error: errorText(error) });
    return 0;
  }
}

/** implement: must leave commits on the branch; the State becomes `implemented`. */
export async function implement(env: RunEnv, ctx: TicketCtx): Promise<Step> {
  const before = await safeHead(env, ctx);
  const run = await runAgentStage(env, ctx, "implement", implementPrompt(ctx.issue, ctx.branch), codeAnswerSchema);
  if (ctx.silenced) return yielded("implement");
  const ahead = run.result.outcome === "success" ? await commitsAhead(env, ctx) : 0;
  const title = run.answer?.title ?? ctx.title;
  // A Stage that ends implemented sends its "implemented" record in the branch's push (ADR 0433).
  const done = ahead > 0 && !run.problem && notTheTicketsFault("implement", run) === null;
  const pushed = await pushWork(env, ctx, "implement", before, done ? stateSnapshot(env, { ...ctx, implemented: true, title }) : undefined);
  if (!pushed.ok) return pushed;
  const outcome = run.result.outcome === "success" && ahead === 0 ? "❌ no commits" : outcomeText(run.result.outcome);
  await endStage(env, ctx, { stage: "implement", outcome, turns: run.result.turns, durationMs: run.result.durationMs });
  const stopped = notTheTicketsFault("implement", run);
  if (stopped) return stopped;
  if (run.problem) return fail("final", "implement", run.problem + refusedText(run.result), run.result.text);
  if (ahead === 0) return fail("final", "implement", `the implement Stage left no commits on the branch${refusedText(run.result)}`, run.result.text);
  ctx.implemented = true;
  ctx.title = title;
  if (!pushed.recorded) await recordState(env, ctx, "implemented");
  return OK;
}

/**
 * verify: a fresh session grades each criterion. The worktree is reset afterwards, so nothing
 * a grader touched can leak into the branch. Only `unmet` fails; `unverifiable` is reported in the
 * pull request body for a reviewer (docs/adr/0072).
 */
export async function verify(env: RunEnv, ctx: TicketCtx): Promise<Step> {
  if (ctx.criteria.length === 0) {
    ctx.graded = [];
    await endStage(env, ctx, { stage: "verify", outcome: "– no criteria", turns: null, durationMs: null });
    return OK;
  }
  const run = await runAgentStage(env, ctx, "verify", verifyPrompt(ctx.issue, ctx.criteria), verifyAnswerSchema);
  if (ctx.lane && !ctx.silenced) {
    try {
      await env.deps.workspace.resetWorktree(ctx.lane);
    } catch (error) {
      env.deps.log.warn(`#${ctx.ticket}: could not reset the worktree after verify`, { error: errorText(error) });
    }
  }
  if (ctx.silenced) return yielded("verify");
  if (run.problem || !run.answer) {
    await endStage(env, ctx, { stage: "verify", outcome: outcomeText(run.result.outcome), turns: run.result.turns, durationMs: run.result.durationMs });
    const stopped = notTheTicketsFault("verify", run);
    if (stopped) return stopped;
    return fail("final", "verify", (run.problem ?? "the verify Stage gave no answer") + refusedText(run.result), run.result.text);
  }
  const answers = run.answer.criteria;
  const graded: GradedCriterion[] = ctx.criteria.map((criterion, i) => {
    const a = answers[i];
    if (!a) return { criterion, verdict: "unverifiable" as Verdict, evidence: "The verify Stage did not grade this criterion." };
    return { criterion, verdict: a.verdict, evidence: a.evidence };
  });
  ctx.graded = graded;
  const unmet = graded.filter((g) => g.verdict === "unmet");
  const met = graded.filter((g) => g.verdict === "met").length;
  const outcome = unmet.length ? `❌ ${unmet.length} of ${graded.length} unmet` : `✅ ${met} of ${graded.length} met`;
  await endStage(env, ctx, { stage: "verify", outcome, turns: run.result.turns, durationMs: run.result.durationMs });
  if (unmet.length === 0) return OK;
  const evidence = unmet.map((g) => `- ${g.criterion.text}\n  ${g.evidence.replace(/\n/g, "\n  ")}`).join("\n");
  return fail("fixable", "verify", `${unmet.length} of ${graded.length} criteria unmet`, evidence);
}

/**
 * fix: the one fix of this take-up, carrying the failure's evidence. It must add commits.
 * Coming back spends the budget; a fix stopped by the rate limit spends nothing (ADR 0073).
 */
export async function fix(env: RunEnv, ctx: TicketCtx, failure: StepFailure): Promise<Step> {
  const before = await safeHead(env, ctx);
  const run = await runAgentStage(env, ctx, "fix", fixPrompt(ctx.issue, failure, ctx.branch), codeAnswerSchema);
  if (ctx.silenced) return yielded("fix");
  const pushed = await pushWork(env, ctx, "fix", before);
  if (!pushed.ok) return pushed;
  const after = await safeHead(env, ctx);
  const added = after !== null && after !== before;
  const outcome = run.result.outcome === "success" && !added ? "❌ no commits" : outcomeText(run.result.outcome);
  await endStage(env, ctx, { stage: "fix", outcome, turns: run.result.turns, durationMs: run.result.durationMs });
  const stopped = notTheTicketsFault("fix", run);
  if (stopped) return stopped;
  ctx.fixUsed = true;
  if (run.answer?.title) ctx.title = run.answer.title;
  await recordState(env, ctx, "fix came back");
  if (run.problem) return fail("final", "fix", `${run.problem} (fixing: ${failure.line})`, failure.evidence);
  if (!added) return fail("final", "fix", `the fix Stage added no commits${refusedText(run.result)} (fixing: ${failure.line})`, failure.evidence);
  return OK;
}
