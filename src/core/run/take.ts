/**
 * Taking a ticket into a Lane: the State file first (written as part of the Claim, so a killed Run
 * leaves a record), then the claim through the ClaimGate, then the ticket's context.
 */
import type { TrackerComment, TrackerIssue } from "../../ports/tracker";
import type { HeldClaim } from "../claim-gate";
import type { StateFile } from "../schemas/state-file";
import type { RunEnv, TicketCtx } from "./context";
import { errorText, recordState } from "./context";
import { sessionsAtTakeUp } from "./session-host";
import { uncheckedCriteria } from "./criteria";
import { ProgressComment, findProgressComment } from "./progress-comment";
import { carriesCurrentHandoff, markHandoffsTaken } from "./resume";
import { limitResetOf } from "./github-limit";

export type Candidate = { kind: "stranded"; issue: TrackerIssue; state: StateFile } | { kind: "frontier"; issue: TrackerIssue };

/**
 * `transient`: nothing answered "no" (no Refusal): GitHub or git could not be asked. The same Run
 * may try that ticket once more; a Refusal is an answer and is never asked again in this Run.
 */
export type TakeResult = { taken: true; ctx: TicketCtx } | ({ taken: false } & Untaken);

/** `limitResetsAt`: GitHub's rate limit stopped the take (ADR 0240); the Run takes nothing more. */
type Untaken = { reason: string; transient: boolean; limitResetsAt?: Date };

/** A take that did not happen, with GitHub's reset time when its rate limit was the cause. */
function untaken(reason: string, transient: boolean, error: unknown): Untaken {
  const reset = limitResetOf(error);
  return reset ? { reason, transient: false, limitResetsAt: reset } : { reason, transient };
}

type Held = { claim: HeldClaim; state: StateFile | null; comments?: TrackerComment[] };

async function claimWithState(env: RunEnv, issue: TrackerIssue): Promise<Held | Untaken> {
  const { workspace, gate, log, clock } = env.deps;
  let state: StateFile | null;
  try {
    state = await workspace.readState(issue.number);
  } catch (error) {
    // Never resume, or forget, a Ticket on a guess.
    return { reason: `its State file could not be read: ${errorText(error)}`, transient: true };
  }
  let wroteFresh = false;
  if (!state) {
    const fresh: StateFile = {
      ticket: issue.number,
      branch: workspace.branchFor(issue.number, issue.title),
      state: "claimed",
      fixUsed: false,
      pullRequest: null,
      title: null,
      runId: env.runId,
      version: env.version,
      updatedAt: clock.now().toISOString(),
    };
    try {
      // The first write is part of the Claim: a remote that refuses it ends the ticket with nothing claimed.
      // A Host taking the same ticket at this moment may have written one since we read: keep it.
      const written = await workspace.writeState(issue.number, (current) => current ?? fresh);
      wroteFresh = !written || written.runId === env.runId;
    } catch (error) {
      return { reason: `the remote refused its State file, so nothing was claimed: ${errorText(error)}`, transient: true };
    }
  }
  let attempt;
  try {
    attempt = await gate.claim(issue.number);
  } catch (error) {
    attempt = { kind: "lost" as const, reason: `the claim failed: ${errorText(error)}`, error };
  }
  if (attempt.kind === "lost") {
    // A rival that holds the ticket (it won the race, or held it already, a newer build's included)
    // works from this same record: removing it would strand the rival's ticket where no sweep finds it.
    const rival = attempt.refusal?.reason;
    const rivalHolds = rival === "race-yielded" || rival === "claimed-elsewhere" || rival === "newer-lease";
    if (wroteFresh && !rivalHolds) {
      try {
        // Only our own record goes: a rival that won may already have written its own.
        await workspace.writeState(issue.number, (current) => (current?.runId === env.runId ? null : current));
      } catch (error) {
        log.warn(`#${issue.number}: could not remove the State file of a lost claim`, { error: errorText(error) });
      }
    }
    return untaken(attempt.reason, !attempt.refusal, "error" in attempt ? attempt.error : attempt.refusal);
  }
  return { claim: attempt.claim, state, comments: attempt.comments };
}

export async function takeTicket(env: RunEnv, candidate: Candidate, laneIndex: number): Promise<TakeResult> {
  const { gate, tracker, log } = env.deps;
  const issue = candidate.issue;
  let claim: HeldClaim;
  let state: StateFile | null;
  let seen: TrackerComment[] | undefined;
  if (candidate.kind === "stranded") {
    let attempt;
    try {
      attempt = await gate.adopt(issue.number);
    } catch (error) {
      attempt = { kind: "lost" as const, reason: `adopting it failed: ${errorText(error)}`, error };
    }
    if (attempt.kind === "lost") return { taken: false, ...untaken(attempt.reason, !attempt.refusal, "error" in attempt ? attempt.error : attempt.refusal) };
    claim = attempt.claim;
    state = candidate.state;
    seen = attempt.comments;
  } else {
    const got = await claimWithState(env, issue);
    if ("reason" in got) return { taken: false, ...got };
    claim = got.claim;
    state = got.state;
    seen = got.comments;
  }

  // The claim's read-back already read every comment, after the claim was written: no read of our own.
  let comments: TrackerComment[] = seen ?? [];
  try {
    if (!seen) comments = await tracker.listComments(issue.number);
  } catch (error) {
    log.warn(`#${issue.number}: could not read its comments`, { error: errorText(error) });
  }
  const afterHandoff = carriesCurrentHandoff(comments, env.viewer);
  if (afterHandoff) await markHandoffsTaken(env, issue.number, comments);
  const existing = afterHandoff ? null : findProgressComment(comments, env.viewer);

  const ctx: TicketCtx = {
    ticket: issue.number,
    laneIndex,
    issue,
    comments,
    criteria: uncheckedCriteria(issue.body),
    branch: state?.branch ?? env.deps.workspace.branchFor(issue.number, issue.title),
    claim,
    resumedFrom: state,
    afterHandoff,
    implemented: state?.state === "implemented",
    // The State carries the budget: a Hand-off wrote it unspent, a Release kept it as it was.
    fixUsed: state?.fixUsed ?? false,
    title: state?.title ?? null,
    pullRequest: state?.pullRequest ?? null,
    lane: null,
    mayPush: false,
    remoteHasBranch: false,
    pushedOnce: false,
    lastPushOk: false,
    stageCounts: new Map(),
    mergedHead: null,
    graded: null,
    progress: new ProgressComment(tracker, log, issue.number, env.runId, env.hostName, existing, () => env.deps.clock.now().getTime()),
    abort: new AbortController(),
    silenced: false,
    sessions: sessionsAtTakeUp(env, issue.number, state, claim.sessions),
  };
  if (state && state.runId !== env.runId) await recordState(env, ctx, "taken up by this Run");
  return { taken: true, ctx };
}
