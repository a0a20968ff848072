/**
 * Getting a worktree for a ticket: cut from the top, or resumed from its State file so it never
 * pays again for Stages it finished. Also the marks a later Run leaves after a Hand-off.
 */
import type { TrackerComment } from "../../ports/tracker";
import { isRefusal } from "../errors";
import type { Refusal } from "../errors";
import type { RunEnv, TicketCtx } from "./context";
import { errorText, recordState } from "./context";
import type { HandoffInput } from "./endings";
import { isCurrentHandoff, markedAsHistory } from "./handoff-comment";

export type SetupResult = { ok: true } | { ok: false; handoff: HandoffInput };

/**
 * The current hand-off comments the Run's own account wrote. Anyone can post a comment shaped like a
 * hand-off; only ours are records (ADR 0162), so an outsider's is neither believed nor edited.
 */
function ownCurrentHandoffs(comments: TrackerComment[], viewer: string): TrackerComment[] {
  return comments.filter((c) => c.author.toLowerCase() === viewer.toLowerCase() && isCurrentHandoff(c.body));
}

export function carriesCurrentHandoff(comments: TrackerComment[], viewer: string): boolean {
  return ownCurrentHandoffs(comments, viewer).length > 0;
}

/** Marks every current hand-off comment of ours as history (an edit under its marker notifies nobody). */
export async function markHandoffsTaken(env: RunEnv, ticket: number, comments: TrackerComment[]): Promise<void> {
  for (const c of ownCurrentHandoffs(comments, env.viewer)) {
    try {
      await env.deps.tracker.updateComment(c.id, markedAsHistory(c.body));
    } catch (error) {
      env.deps.log.warn(`#${ticket}: could not mark hand-off comment ${c.id} as history`, { error: errorText(error) });
    }
  }
}

/** A branch in the way may be a person's or another Host's work: the hand-off names it and pushes nothing. */
function branchInWay(env: RunEnv, ctx: TicketCtx, refusal: Refusal): HandoffInput {
  // The main checkout is not a worktree to name: only where the branch is checked out apart from it.
  const named = refusal.details.path ?? null;
  const path = named && named !== env.deps.workspace.root ? named : null;
  const fallback = `a branch \`${ctx.branch}\` is in the way${path ? ` (checked out in \`${path}\`)` : ""}. Delete it with \`git branch -D ${ctx.branch}\` if the work on it is abandoned, or finish it by hand, then relabel the Ticket ready-for-agent.`;
  return { stage: "setup", state: "remove", worktree: path, line: refusal.message || fallback, evidence: "" };
}

/**
 * Parted: each side holds commits the other lacks. Both copies are the pipeline's work, so the State
 * stays; nothing is pushed and no draft opens (an open pull request still goes back to draft).
 */
function parted(ctx: TicketCtx, detail: string, worktree: string): HandoffInput {
  return {
    stage: "setup",
    state: "keep",
    worktree,
    // One way out, and the one that destroys nothing: the workspace's words name it (Evidence).
    line: `this Host's copy of \`${ctx.branch}\` (worktree \`${worktree}\`) and the remote's have parted (each has commits the other lacks). The Evidence below gives the safe way to make them one, which keeps both copies; then relabel the Ticket ready-for-agent.`,
    evidence: detail,
  };
}

async function cutFromTop(env: RunEnv, ctx: TicketCtx): Promise<SetupResult> {
  try {
    ctx.lane = await env.deps.workspace.cutLane(ctx.ticket, ctx.branch, env.base);
    ctx.mayPush = true;
    return { ok: true };
  } catch (error) {
    if (isRefusal(error) && error.reason === "branch-in-way") return { ok: false, handoff: branchInWay(env, ctx, error) };
    return { ok: false, handoff: { stage: "setup", state: "remove", line: `could not make a worktree: ${errorText(error)}`, evidence: "" } };
  }
}

export async function setUpLane(env: RunEnv, ctx: TicketCtx): Promise<SetupResult> {
  const { workspace, log } = env.deps;
  try {
    await workspace.fetchBase(env.base);
  } catch (error) {
    // Nothing was branched by this Run; a resumed ticket's State still describes the remote's work.
    return {
      ok: false,
      handoff: { stage: "setup", state: ctx.resumedFrom ? "keep" : "remove", line: `could not fetch ${env.base}: ${errorText(error)}`, evidence: "" },
    };
  }
  if (!ctx.resumedFrom) return cutFromTop(env, ctx);

  let resumed;
  try {
    resumed = await workspace.resumeLane(ctx.ticket, ctx.branch, env.base);
  } catch (error) {
    if (isRefusal(error) && error.reason === "branches-parted")
      return { ok: false, handoff: parted(ctx, error.message, error.details.path ?? workspace.lanePath(ctx.ticket)) };
    if (isRefusal(error) && error.reason === "branch-in-way") return { ok: false, handoff: { ...branchInWay(env, ctx, error), state: "keep" } };
    return { ok: false, handoff: { stage: "setup", state: "keep", line: `could not resume the worktree: ${errorText(error)}`, evidence: "" } };
  }
  if (resumed.outcome === "gone") {
    // The branch is in neither the worktree here nor on the remote: there is nothing to resume.
    // The State is overwritten with a fresh one before the cut, never removed first: a Run killed
    // between a removal and a new write would leave a claimed ticket that no sweep finds again.
    log.info(`#${ctx.ticket}: branch ${ctx.branch} is gone (${resumed.detail}); starting it over`);
    ctx.resumedFrom = null;
    ctx.implemented = false;
    ctx.pullRequest = null;
    await recordState(env, ctx, "started over");
    return cutFromTop(env, ctx);
  }
  if (resumed.outcome === "parted") return { ok: false, handoff: parted(ctx, resumed.detail, resumed.lane?.path ?? workspace.lanePath(ctx.ticket)) };
  ctx.lane = resumed.lane;
  if (!ctx.lane)
    return { ok: false, handoff: { stage: "setup", state: "keep", line: `no worktree came back for ${ctx.branch}: ${resumed.detail}`, evidence: "" } };
  ctx.mayPush = true;
  ctx.remoteHasBranch = resumed.outcome === "made" || resumed.outcome === "fast-forwarded";
  try {
    // A killed Run may have left a rebase stopped (the adapter aborts it too), or a Stage's
    // uncommitted edits: those are lost (docs/workspace.md).
    if (await workspace.abortRebaseInProgress(ctx.lane)) log.info(`#${ctx.ticket}: aborted a rebase a killed Run left in progress`);
    // A code Stage whose agent session is continued keeps its uncommitted edits: the session
    // remembers making them (ADR-0142). Otherwise they are lost (docs/workspace.md).
    const continuing = (["implement", "fix", "conflict"] as const).some((stage) => ctx.sessions[stage] !== undefined);
    if (!continuing && !(await workspace.isClean(ctx.lane))) await workspace.resetWorktree(ctx.lane);
  } catch (error) {
    log.warn(`#${ctx.ticket}: could not tidy the resumed worktree`, { error: errorText(error) });
  }
  return { ok: true };
}
