/**
 * How a claim ends: what a loser (or a displaced holder) gives back, and the three endings
 * (finished, released, handed off). Not the twin of hand-back.ts (a person handing a ticket back).
 *
 * A loser removes only what it added AND no rival still needs: its `claim:<host>` label unless a
 * rival on a host with the same label holds, its assignee unless a rival of the same user holds.
 * `in-progress` stays (the winner needs it) and `ready-for-agent` stays off (the ticket is held).
 */
import type { IssueWrite } from "../../ports/tracker";
import type { HeldClaim, ReleaseWhy } from "../claim-gate";
import { leaseSchema } from "../schemas/lease";
import type { Lease } from "../schemas/lease";
import type { ClaimContext } from "./claim-context";
import type { TicketReading } from "./ticket-reading";
import { archiveTail, renderLeaseComment } from "./lease-comment";
import type { LeaseRecord } from "./lease-standing";
import type { GithubId } from "../schemas/github-id";

export function sameUser(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Live claims other than `nonce`'s, as of `reading`. */
function rivals(reading: TicketReading, nonce: string): LeaseRecord[] {
  return reading.standing.live.filter((r) => r.lease?.nonce !== nonce);
}

function tailOf(reading: TicketReading | null, commentId: GithubId): string {
  const rec = reading?.records.find((r) => r.comment.id === commentId);
  return rec ? archiveTail(rec.comment.body ?? "") : "";
}

export interface StandDownResult {
  /** Where the local claim was moved, if it was. */
  archived: string | null;
  /** What was written to GitHub, in words for the Run's log. */
  wrote: string;
}

/**
 * The last step of both stand-downs: the local claim moved aside (if this session still holds it)
 * and what was done logged. `said` is the lease's new state, what was written, and who holds now.
 */
async function stepAside(
  ctx: ClaimContext,
  args: { ticket: number; runDir: string; why: string },
  said: { state: Lease["state"]; wrote: string; winner?: string | null; holder?: string | null },
): Promise<StandDownResult> {
  const archived = await ctx.options.runRoot.moveAside(
    args.runDir,
    { reason: args.why, at: ctx.now().toISOString(), by: ctx.session },
    { ifSession: ctx.session },
  );
  const { state, wrote, ...who } = said;
  ctx.options.log.info("stood down from a claim", { ticket: args.ticket, state, why: args.why, wrote, ...who, archived: archived ?? null });
  return { archived, wrote };
}

/**
 * A lost race: marks `mine` race-yielded, takes back this claim's host label and assignee when no
 * rival needs them, and moves the local claim aside. Best effort on GitHub: a failed write is logged
 * (an unrenewed machine lease goes stale by itself); the local move always runs.
 */
export async function standDown(
  ctx: ClaimContext,
  args: { ticket: number; viewer: string; mine: Lease; commentId: GithubId; reading: TicketReading; winner: LeaseRecord | null; runDir: string; why: string },
): Promise<StandDownResult> {
  const others = rivals(args.reading, args.mine.nonce);
  const lease: Lease = { ...args.mine, state: "race-yielded", yieldedTo: args.winner?.lease?.nonce };
  const write: IssueWrite = { comment: { id: args.commentId, body: renderLeaseComment(lease, tailOf(args.reading, args.commentId)) } };
  const label = ctx.hostLabel();
  if (label && !others.some((r) => r.lease && ctx.hostLabel(r.lease.host) === label)) write.removeLabels = [label];
  if (!others.some((r) => sameUser(r.comment.author, args.viewer))) write.removeAssignees = [args.viewer];
  const parts = [
    "its lease marked race-yielded",
    ...(write.removeLabels ? [`${label} taken off`] : []),
    ...(write.removeAssignees ? [`@${args.viewer} unassigned`] : []),
  ];
  let wrote = parts.join(", ");
  try {
    await ctx.options.tracker.writeIssue(args.ticket, write);
  } catch (error) {
    wrote = `nothing (marking its lease race-yielded failed: ${String(error).slice(0, 200)})`;
    ctx.options.log.error("could not mark a yielded lease; it goes stale on its own", { ticket: args.ticket, comment: args.commentId, error: String(error) });
  }
  return stepAside(ctx, args, { state: "race-yielded", wrote, winner: args.winner?.comment.url ?? null });
}

/**
 * A claim that another one displaced, or that ended elsewhere: its lease is someone else's record
 * now, so nothing more is written to it, nor to the labels and assignees (the taker's write took
 * ours off). One exception: when a write of ours landed after the take-over's and overwrote its
 * "superseded" mark (a Run frozen between its read and its write), the mark is put back.
 */
export async function standAside(
  ctx: ClaimContext,
  args: { ticket: number; mine: Lease; commentId: GithubId; reading: TicketReading; takenBy: LeaseRecord | null; runDir: string; why: string },
): Promise<StandDownResult> {
  const rec = args.reading.records.find((r) => r.comment.id === args.commentId);
  const overwritten =
    rec?.lease?.nonce === args.mine.nonce &&
    !rec.finished &&
    (rec.lease.state === "claimed" || rec.lease.state === "running") &&
    args.reading.standing.displaced.includes(rec);
  let wrote = "nothing";
  if (overwritten && rec?.lease) {
    const mark: Lease = { ...rec.lease, state: "superseded", supersededBy: rec.lease.supersededBy ?? args.takenBy?.lease?.nonce };
    try {
      await ctx.options.tracker.updateComment(args.commentId, renderLeaseComment(mark, tailOf(args.reading, args.commentId)));
      wrote = "its lease's superseded mark put back (a write of its own had landed over the take-over's)";
    } catch (error) {
      wrote = `nothing (putting back its lease's superseded mark failed: ${String(error).slice(0, 200)})`;
      ctx.options.log.error("could not put back the superseded mark our own write overwrote", {
        ticket: args.ticket,
        comment: args.commentId,
        error: String(error),
      });
    }
  }
  return stepAside(ctx, args, { state: "superseded", wrote, holder: args.takenBy?.comment.url ?? null });
}

export type Ending = "finished" | "released" | "handed-off";

/**
 * Whether a release puts `ready-for-agent` back: only when a writer applied it last (ADR 0162). The
 * release is written with the releaser's token, so putting back a label a non-writer applied (or
 * one the issue never had) would make it a writer's label, and a machine would take the ticket.
 */
export async function readyGoesBack(ctx: ClaimContext, ticket: number, reading: TicketReading): Promise<boolean> {
  return (await ctx.trust.readyLabelTrusted(ctx.options.tracker, ticket, ctx.options.labels.ready, reading)).trusted;
}

/**
 * The endings: finished (in-progress off), released (ready-for-agent back on), handed off
 * (ready-for-human on). Unassigning is the last write of the document. When a rival holds the
 * ticket now, only our lease is marked: the labels are the holder's.
 */
export async function endClaim(ctx: ClaimContext, claim: HeldClaim, ending: Ending, reading: TicketReading, why?: ReleaseWhy): Promise<string | null> {
  const { labels } = ctx.options;
  const now = ctx.now().toISOString();
  // A reset time the lease schema would refuse is left out rather than make the lease unreadable.
  const resets = ending === "released" ? leaseSchema.shape.limitResetsAt.safeParse(why?.limitResetsAt ?? undefined).data : undefined;
  const lease: Lease = { ...claim.lease, state: ending, stage: undefined, stageStartedAt: undefined, renewedAt: now, limitResetsAt: resets };
  const write: IssueWrite = { comment: { id: claim.commentId, body: renderLeaseComment(lease, tailOf(reading, claim.commentId)) } };
  const others = rivals(reading, claim.lease.nonce);
  if (others.length === 0) {
    // The label is the lease's Host's: a release from another Host (a person's, by hand) must not
    // leave `claim:<that host>` behind and try to remove its own instead.
    const hostLabel = ctx.hostLabel(claim.lease.host);
    write.removeLabels = [labels.inProgress, ...(hostLabel ? [hostLabel] : [])];
    if (ending === "released" && (await readyGoesBack(ctx, claim.ticket, reading))) write.addLabels = [labels.ready];
    if (ending === "handed-off") write.addLabels = [labels.human];
    if (ending !== "finished") write.removeAssignees = [reading.viewer];
  } else {
    ctx.options.log.warn("ending a claim that a rival now holds: only our lease is marked", {
      ticket: claim.ticket,
      ending,
      holder: others[0]?.comment.url ?? null,
    });
  }
  await ctx.options.tracker.writeIssue(claim.ticket, write);
  claim.lease = lease;
  return ctx.options.runRoot.moveAside(claim.runDir, { reason: ending, at: now, by: ctx.session }, { ifSession: ctx.session });
}
