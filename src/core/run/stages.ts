/**
 * Running one agent Stage and pushing what a code Stage committed. A Stage that throws, prints
 * garbage or gives a malformed answer fails with a clear outcome; it never takes the Run down.
 */
import type { z } from "zod";
import type { AgentEvent, StageName, StageOutcome, StageResult } from "../../ports/agent-runner";
import type { StateFile } from "../schemas/state-file";
import { redactSecrets } from "../redact";
import { OUTCOME_FAULT, UNAVAILABLE_WHAT } from "./agent-faults";
import type { RunEnv, Step, TicketCtx } from "./context";
import { OK, errorText, fail, noteSessions, startStage, yielded } from "./context";
import { formatMinutes, resetTime, ticketLogDir } from "./naming";
import { resumePrompt } from "./prompts";
import { stagePermissions } from "./stage-permissions";
import { jsonSchemaFor, parseAnswer } from "./stage-answers";

export interface StageRun<T> {
  result: StageResult;
  answer: T | null;
  /** Why the Stage did not succeed, in one line; null on success. */
  problem: string | null;
  logName: string;
}

const OUTCOME_TEXT: Record<StageOutcome, string> = {
  success: "✅ done",
  "rate-limited": "⏸ rate limited",
  "timed-out": "⌛ timed out",
  "turn-capped": "✋ turn limit reached",
  "nonzero-exit": "❌ agent exited with an error",
  "invalid-result": "❌ invalid result",
  unavailable: "⊘ agent unavailable",
};

export function outcomeText(outcome: StageOutcome): string {
  return OUTCOME_TEXT[outcome];
}

/** `implement` the first time, `retry/implement-2` the second, so every attempt's log is kept. */
function nextLogName(ctx: TicketCtx, stage: string): string {
  const n = (ctx.stageCounts.get(stage) ?? 0) + 1;
  ctx.stageCounts.set(stage, n);
  return n === 1 ? stage : `retry/${stage}-${n}`;
}

function describeProblem(stage: string, result: StageResult, env: RunEnv): string {
  const detail = result.detail ? `: ${redactSecrets(result.detail, process.env).slice(0, 500)}` : "";
  switch (result.outcome) {
    case "timed-out":
      return `the ${stage} Stage did not finish within ${formatMinutes(env.config.agent.stageTimeoutMinutes)}${detail}`;
    case "turn-capped":
      return `the ${stage} Stage reached its limit of ${env.config.agent.maxTurns} turns${detail}`;
    case "nonzero-exit":
      return `the ${stage} Stage's agent exited with an error${detail}`;
    case "invalid-result":
      return `the ${stage} Stage gave an invalid result${detail}`;
    case "rate-limited":
      return `the ${stage} Stage hit the ${result.limitName ?? "subscription rate limit"}${resetTime(result.limitResetsAt) ? ` (resets ${resetTime(result.limitResetsAt)})` : ""}`;
    case "unavailable":
      return `${UNAVAILABLE_WHAT[result.unavailable ?? "provider-down"]}${detail}`;
    case "success":
      return "";
  }
}

/** The commands the agent was refused, for a hand-off that says why nothing was committed. */
export function refusedText(result: StageResult): string {
  const denied = result.permissionDenials ?? [];
  if (denied.length === 0) return "";
  // Quoted, not code-spanned: the hand-off comment neutralises markup in what an agent wrote.
  const shown = denied
    .slice(0, 5)
    .map((d) => JSON.stringify(d))
    .join(", ");
  const more = denied.length > 5 ? ` and ${denied.length - 5} more` : "";
  return `; the agent was refused ${shown}${more} (allow what the Stage needs: agent.permissionMode and the Checks in ticket-runner.json, docs/agents.md)`;
}

/**
 * A Stage that the limit or the environment stopped: a Release or a stopped Run, never a Hand-off
 * (agent-faults.ts). Null when the outcome is the ticket's business.
 */
export function notTheTicketsFault(stage: string, run: StageRun<unknown>): Step | null {
  const fault = OUTCOME_FAULT[run.result.outcome];
  if (fault === "limit") return fail("rate-limited", stage, run.problem ?? "");
  if (fault === "environment") {
    const unavailable = { reason: run.result.unavailable ?? "provider-down", detail: run.result.detail ?? "" };
    return { ok: false, failure: { kind: "unavailable", stage, line: run.problem ?? "", evidence: "", unavailable } };
  }
  return null;
}

export async function runAgentStage<T>(env: RunEnv, ctx: TicketCtx, stage: StageName, prompt: string, schema: z.ZodType<T>): Promise<StageRun<T>> {
  const { gate, log } = env.deps;
  const logName = nextLogName(ctx, stage);
  try {
    if ((await gate.markStage(ctx.claim, stage)) === "yield") {
      silence(env, ctx, `the claim no longer holds at the ${stage} Stage`);
      const result: StageResult = { outcome: "nonzero-exit", turns: 0, durationMs: 0, text: "", detail: "stood down before the Stage" };
      return { result, answer: null, problem: "stood down before the Stage", logName };
    }
  } catch (error) {
    log.warn(`#${ctx.ticket}: could not checkpoint the lease at ${stage}`, { error: errorText(error) });
  }
  const started = await startStage(env, ctx, stage);
  let result = await runSession(env, ctx, stage, prompt, logName, started);
  if (result.resumeFailed) {
    // The session is gone (another Host, a cleared home): the Stage starts over in a fresh one.
    env.deps.log.info(`#${ctx.ticket}: the ${stage} Stage's session ${ctx.sessions[stage]} could not be resumed; starting a fresh one`);
    delete ctx.sessions[stage];
    await noteSessions(env, ctx);
    result = await runSession(env, ctx, stage, prompt, nextLogName(ctx, stage), started);
  }
  // A session the ticket's own outcome ended is not continued; one the limit or the environment cut is.
  if (OUTCOME_FAULT[result.outcome] !== "limit" && OUTCOME_FAULT[result.outcome] !== "environment" && ctx.sessions[stage] !== undefined) {
    delete ctx.sessions[stage];
    await noteSessions(env, ctx);
  }
  if (result.outcome !== "success") {
    return { result, answer: null, problem: describeProblem(stage, result, env), logName };
  }
  const parsed = parseAnswer(schema, result.structured);
  if (!parsed.ok) {
    const invalid: StageResult = { ...result, outcome: "invalid-result", detail: parsed.why };
    return { result: invalid, answer: null, problem: describeProblem(stage, invalid, env), logName };
  }
  return { result, answer: parsed.value, problem: null, logName };
}

/**
 * One agent session of a Stage: continued when the Stage was interrupted before (its session is in
 * ctx.sessions), else fresh. The session id is noted in this Host's local claim as soon as the agent
 * names it, so even a Run killed mid-stream leaves it for the next one here (ADR-0142, ADR 0452).
 */
async function runSession(env: RunEnv, ctx: TicketCtx, stage: StageName, prompt: string, logName: string, started: number): Promise<StageResult> {
  const resume = ctx.sessions[stage];
  let recording: Promise<unknown> = Promise.resolve();
  const onEvent = (event: AgentEvent): void => {
    if (event.kind === "init" && event.sessionId && ctx.sessions[stage] !== event.sessionId) {
      ctx.sessions[stage] = event.sessionId;
      recording = recording.then(() => noteSessions(env, ctx));
    }
    env.events.emit({ kind: "transcript", lane: ctx.laneIndex, ticket: ctx.ticket, stage, event });
  };
  let result: StageResult;
  try {
    result = await env.deps.agent.run({
      stage,
      ticket: ctx.ticket,
      prompt: resume ? resumePrompt(prompt) : prompt,
      cwd: ctx.lane?.path ?? env.deps.workspace.root,
      logDir: ticketLogDir(env.deps.workspace.root, env.runId, ctx.ticket),
      logName,
      jsonSchema: jsonSchemaFor(stage),
      timeoutMs: env.config.agent.stageTimeoutMinutes * 60_000,
      maxTurns: env.config.agent.maxTurns,
      allowedCommands: stagePermissions(stage, env.config),
      ...(resume ? { resumeSession: resume } : {}),
      // The demo agent reads the base from here when it is not the remote's HEAD.
      env: { TICKET_RUNNER_STAGE: stage, TICKET_RUNNER_TICKET: String(ctx.ticket), TICKET_RUNNER_BASE: env.base },
      onEvent,
      signal: ctx.abort.signal,
    });
  } catch (error) {
    result = {
      outcome: "nonzero-exit",
      turns: 0,
      durationMs: env.deps.clock.now().getTime() - started,
      text: "",
      detail: `the agent runner failed: ${errorText(error)}`,
    };
  }
  await recording;
  if (result.sessionId && !result.resumeFailed && ctx.sessions[stage] !== result.sessionId) {
    ctx.sessions[stage] = result.sessionId;
    await noteSessions(env, ctx);
  }
  if (result.limitResetsAt) env.flags.limitResetsAt = ctx.limitResetsAt = result.limitResetsAt;
  return result;
}

/**
 * Pushes the branch after a code Stage, whatever became of the Stage: a session the limit stopped
 * may already have committed. Before the first push the claim is checked once more (docs/claims.md):
 * an earlier claim found late makes this Run yield. A failed push is logged and nothing more.
 */
export async function pushWork(
  env: RunEnv,
  ctx: TicketCtx,
  stage: string,
  headBefore?: string | null,
  record?: StateFile,
): Promise<Step & { recorded?: boolean }> {
  if (!ctx.lane || !ctx.mayPush || ctx.silenced) return ctx.silenced ? yielded(stage) : OK;
  // A code Stage that committed nothing has nothing to push.
  if (headBefore !== undefined && (await safeHead(env, ctx)) === headBefore) return OK;
  const { workspace, gate, log } = env.deps;
  if (!ctx.pushedOnce) {
    try {
      const check = env.deps.recheck ?? ((claim) => gate.heartbeat(claim));
      if ((await check(ctx.claim)) === "yield") {
        silence(env, ctx, "an earlier claim was found before the first push");
        return yielded(stage);
      }
    } catch (error) {
      log.warn(`#${ctx.ticket}: could not re-check the claim before the first push`, { error: errorText(error) });
    }
  }
  try {
    const pushed = await workspace.push(ctx.lane, record ? { record } : undefined);
    ctx.lastPushOk = pushed.ok;
    ctx.lastPushRefusal = pushed.refused;
    if (pushed.ok) {
      ctx.pushedOnce = true;
      ctx.remoteHasBranch = true;
      if (pushed.recorded) return { ...OK, recorded: true };
    } else {
      log.warn(`#${ctx.ticket}: push after ${stage} failed: ${pushed.detail}`);
    }
  } catch (error) {
    ctx.lastPushOk = false;
    log.warn(`#${ctx.ticket}: push after ${stage} failed`, { error: errorText(error) });
  }
  return OK;
}

export async function safeHead(env: RunEnv, ctx: TicketCtx): Promise<string | null> {
  if (!ctx.lane) return null;
  try {
    return await env.deps.workspace.headSha(ctx.lane);
  } catch {
    return null;
  }
}

/** The holder's check, started now and read by stillHolds: never rejects (a failure is its answer). */
export type HoldsAnswer = "held" | "yield" | { failed: unknown };

export function askHolds(env: RunEnv, ctx: TicketCtx): Promise<HoldsAnswer> {
  if (ctx.silenced) return Promise.resolve("yield");
  const check = env.deps.recheck ?? ((claim) => env.deps.gate.heartbeat(claim));
  return check(ctx.claim).catch((failed: unknown) => ({ failed }));
}

/**
 * Whether this Run still holds the ticket, asked before a write that only a holder may make (the
 * pull request, a hand-off, a release): one read, or the answer of one started a moment before
 * (`asked`, askHolds). A claim that stood down silences the ticket. When GitHub cannot be asked,
 * the answer is yes (the ending's own read decides again).
 */
export async function stillHolds(env: RunEnv, ctx: TicketCtx, before: string, asked?: Promise<HoldsAnswer>): Promise<boolean> {
  if (ctx.silenced) return false;
  const answer = await (asked ?? askHolds(env, ctx));
  if (ctx.silenced) return false;
  if (answer === "held") return true;
  if (answer !== "yield") {
    env.deps.log.warn(`#${ctx.ticket}: could not re-check the claim before ${before}`, { error: errorText(answer.failed) });
    return true;
  }
  silence(env, ctx, `the claim no longer holds before ${before}`);
  return false;
}

/** What a stood-down claim did, in the Run's words: why, and what it wrote to GitHub. */
export function stoodDownWords(ctx: TicketCtx, fallback: string): string {
  const s = ctx.claim.stoodDown;
  return s ? `stood down (${s.why}); wrote ${s.wrote}` : fallback;
}

/** Stops the ticket where it is and writes nothing more (a heartbeat "yield", or a kill). */
export function silence(env: RunEnv, ctx: TicketCtx, why: string): void {
  if (ctx.silenced) return;
  ctx.silenced = true;
  env.deps.log.warn(`#${ctx.ticket}: ${why}; ${stoodDownWords(ctx, "stopping it without writing anything more")}`);
  ctx.abort.abort();
}
