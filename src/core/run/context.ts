/**
 * What one Run shares across its Lanes (RunEnv) and what one Lane knows about its Ticket (TicketCtx).
 * Everything a Stage needs is passed in here; nothing is global.
 */
import type { AgentRunner, UnavailableReason } from "../../ports/agent-runner";
import type { Unavailable } from "./agent-faults";
import type { Clock } from "../../ports/clock";
import type { Host } from "../../ports/host";
import type { Log } from "../../ports/log";
import type { MergeMethod, Tracker, TrackerComment, TrackerIssue } from "../../ports/tracker";
import type { Lane, PushRefusal, Workspace } from "../../ports/workspace";
import type { ClaimGate, HeldClaim } from "../claim-gate";
import type { Config } from "../schemas/config";
import type { StateFile } from "../schemas/state-file";
import type { Criterion } from "./criteria";
import type { MergeTrain } from "./merge-train";
import type { ProgressComment } from "./progress-comment";
import type { RunEvents } from "./run-events";
import type { Verdict } from "./stage-answers";
import { sessionHost } from "./session-host";

/** Decides whether an issue's `ready-for-agent` label was applied by someone with write access (ADR 0042). */
export type TrustCheck = (issue: TrackerIssue) => Promise<boolean>;

export interface RunDeps {
  tracker: Tracker;
  workspace: Workspace;
  agent: AgentRunner;
  gate: ClaimGate;
  clock: Clock;
  host: Host;
  log: Log;
  /** Optional: the claims code's trust rule. Without it the Run asks labelActors + permissionOf itself. */
  trust?: TrustCheck;
  /** Optional: a read-only re-check of the claim before the first push. Without it the heartbeat serves. */
  recheck?: (claim: HeldClaim) => Promise<"held" | "yield">;
}

export interface RunFlags {
  stopping: boolean;
  stoppedAt: Date | null;
  stoppedHolding: number[];
  rateLimited: boolean;
  /** When the limit that stopped a Stage resets (ISO), the latest one heard of. */
  limitResetsAt: string | null;
  /** The agent could not work at all: the Run takes nothing more (ADR-0141). */
  unavailable: Unavailable | null;
  killed: boolean;
}

export interface RunEnv {
  deps: RunDeps;
  config: Config;
  runId: string;
  version: string;
  viewer: string;
  base: string;
  hostName: string;
  events: RunEvents;
  /** The merge order of the Landings (ADR 0181). */
  train: MergeTrain;
  /** The merge method this Run uses: the configured one, or what the repository allows (ADR 0242). */
  mergeMethod: MergeMethod;
  flags: RunFlags;
  /** Lane index -> the ticket it holds, for the stop line and front doors. */
  held: Map<number, TicketCtx>;
}

export interface GradedCriterion {
  criterion: Criterion;
  verdict: Verdict;
  evidence: string;
}

export interface TicketCtx {
  ticket: number;
  laneIndex: number;
  issue: TrackerIssue;
  comments: TrackerComment[];
  criteria: Criterion[];
  branch: string;
  claim: HeldClaim;
  /** The State file this take-up started from (null: taken from the top). */
  resumedFrom: StateFile | null;
  /** A current hand-off comment was on the issue: a person relabelled it. */
  afterHandoff: boolean;
  implemented: boolean;
  fixUsed: boolean;
  title: string | null;
  pullRequest: number | null;
  lane: Lane | null;
  /** The worktree is one this Run may push from (not a branch in the way, not parted). */
  mayPush: boolean;
  remoteHasBranch: boolean;
  pushedOnce: boolean;
  /** Whether the latest push reached the remote. */
  lastPushOk: boolean;
  /** Why GitHub refused the latest push, when it said why. */
  lastPushRefusal?: PushRefusal;
  stageCounts: Map<string, number>;
  /** The head commit GitHub was asked to merge (not the merge commit it made): the clean-up deletes the branch only while it still points there. */
  mergedHead: string | null;
  graded: GradedCriterion[] | null;
  progress: ProgressComment;
  abort: AbortController;
  /** Set by a heartbeat "yield" or a kill: the ticket stops and writes nothing more. */
  silenced: boolean;
  /** Stage -> the agent session it was interrupted in, to continue rather than pay again (ADR-0142). */
  sessions: Record<string, string>;
  /** When the rate limit that stopped this ticket's Stage resets (ISO), as the agent said; its release keeps it on the lease. */
  limitResetsAt?: string;
}

/** How a step of the pipeline went. A failure is either coverable by the Fix budget or not. */
export type Step = { ok: true } | { ok: false; failure: StepFailure };

export interface StepFailure {
  kind: "fixable" | "final" | "rate-limited" | "unavailable" | "yield";
  stage: string;
  line: string;
  evidence: string;
  /** With kind "rate-limited": whose limit it was (the agent's when absent); `line` then says GitHub's words. */
  by?: "github";
  /** With kind "unavailable": why, as the agent runner said it. */
  unavailable?: { reason: UnavailableReason; detail: string };
}

export const OK: Step = { ok: true };

export function fail(kind: StepFailure["kind"], stage: string, line: string, evidence = ""): Step {
  return { ok: false, failure: { kind, stage, line, evidence } };
}

export function yielded(stage: string): Step {
  return fail("yield", stage, "an earlier claim was found; this Run yields the ticket");
}

export function stateSnapshot(env: RunEnv, ctx: TicketCtx, now: Date = env.deps.clock.now()): StateFile {
  return {
    ticket: ctx.ticket,
    branch: ctx.branch,
    state: ctx.implemented ? "implemented" : "claimed",
    fixUsed: ctx.fixUsed,
    pullRequest: ctx.pullRequest,
    title: ctx.title,
    ...(Object.keys(ctx.sessions).length > 0 ? { sessions: { ...ctx.sessions }, sessionsOn: sessionHost(env) } : {}),
    runId: env.runId,
    version: env.version,
    updatedAt: now.toISOString(),
  };
}

/** Every State write after the first is logged and nothing more when it fails (docs/endings.md). */
export async function recordState(env: RunEnv, ctx: TicketCtx, why: string, override: Partial<StateFile> = {}): Promise<boolean> {
  if (ctx.silenced) return false;
  const next = { ...stateSnapshot(env, ctx, env.deps.clock.now()), ...override };
  try {
    await env.deps.workspace.writeState(ctx.ticket, () => next);
    return true;
  } catch (error) {
    env.deps.log.warn(`#${ctx.ticket}: could not record the State file (${why}); the remote keeps an earlier state`, { error: String(error) });
    return false;
  }
}

/**
 * Notes the ticket's agent sessions in this Host's local claim (ADR 0452): a Run killed mid-Stage
 * leaves them for the next Run here. The State file gets them with its next write. A failure is
 * logged: the Stage goes on, and only a kill before that next write would start it afresh.
 */
export async function noteSessions(env: RunEnv, ctx: TicketCtx): Promise<void> {
  if (ctx.silenced) return;
  try {
    await env.deps.gate.noteSessions(ctx.claim, { ...ctx.sessions });
  } catch (error) {
    env.deps.log.warn(`#${ctx.ticket}: could not note the agent sessions in this Host's local claim`, { error: errorText(error) });
  }
}

export async function removeState(env: RunEnv, ticket: number, why: string): Promise<void> {
  try {
    await env.deps.workspace.writeState(ticket, () => null);
    env.deps.log.info(`#${ticket}: State file removed (${why})`);
  } catch (error) {
    env.deps.log.warn(`#${ticket}: could not remove the State file (${why})`, { error: String(error) });
  }
}

/** Ends a Stage row: the event for front doors and the row in the progress comment. */
export async function endStage(
  env: RunEnv,
  ctx: TicketCtx,
  row: { stage: string; outcome: string; turns: number | null; durationMs: number | null },
): Promise<void> {
  if (ctx.silenced) return;
  env.events.emit({
    kind: "stage-ended",
    lane: ctx.laneIndex,
    ticket: ctx.ticket,
    stage: row.stage,
    outcome: row.outcome,
    turns: row.turns,
    durationMs: row.durationMs ?? 0,
    at: env.deps.clock.now().toISOString(),
  });
  await ctx.progress.add(row);
}

/**
 * Emits the start and returns when it started. The rows before a long Stage are written beside its
 * start, not before it (ADR 0484): the progress comment's writes are kept in order by the comment
 * itself, and every later write (the ticket's ending's) waits for this one.
 */
export async function startStage(env: RunEnv, ctx: TicketCtx, stage: string): Promise<number> {
  env.events.emit({ kind: "stage-started", lane: ctx.laneIndex, ticket: ctx.ticket, stage, at: env.deps.clock.now().toISOString() });
  const started = env.deps.clock.now().getTime();
  // flush() never rejects (a failed write is logged), so nothing waits for it here.
  if (!ctx.silenced) void ctx.progress.stageStarting(stage);
  return started;
}

export function elapsed(env: RunEnv, since: number): number {
  return env.deps.clock.now().getTime() - since;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
