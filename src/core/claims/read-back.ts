/**
 * Step 5 of a claim: what the read-back must show for the claim to stand (ADR 0380). The read-back
 * is the claim write's own answer: GitHub applies the write and reads the issue back in the same
 * request, so it shows every lease that landed before ours. Claims rank by when their comments
 * landed (lease-standing.ts), so a claim that sees no earlier live lease in that answer holds the
 * ticket, and every claim that lands after it sees it and stands down.
 *
 * - The ticket must still be open and not handed to a person, and no other claim may have ended
 *   on it since our first read (another Run claimed, worked and finished it meanwhile).
 * - A write whose answer was lost (it may have landed) is read back by a plain read once a settle
 *   has passed, as before ADR 0380: the read shows whether it landed and who came before it.
 * - The settle is kept for reads that lag: the claim's next read (a Stage checkpoint, the heartbeat,
 *   the re-check before the first push) waits until a settle after the write, so it shows any lease
 *   that landed before ours even when GitHub's answers lag (HeldClaim.confirmAfter, lifecycle.ts).
 */
import type { IssueThread, TrackerComment } from "../../ports/tracker";
import type { Lease } from "../schemas/lease";
import type { ClaimContext } from "./claim-context";
import type { TicketReading } from "./ticket-reading";
import { isNewer, standings, type LeaseRecord } from "./lease-standing";

export type ReadBack =
  | { kind: "missing"; back: TicketReading }
  | { kind: "won"; back: TicketReading; mine: LeaseRecord }
  | { kind: "lost"; back: TicketReading; mine: LeaseRecord; winner: LeaseRecord | null }
  | { kind: "overtaken"; back: TicketReading; mine: LeaseRecord; why: string; link: string };

/** Our lease in `back`; when the answer does not show our own write yet (a lagging read), the written comment counts anyway. */
function findMine(ctx: ClaimContext, back: TicketReading, lease: Lease, written: TrackerComment | null): LeaseRecord | null {
  const mine = back.records.find((r) => r.lease?.nonce === lease.nonce) ?? null;
  if (mine || !written) return mine;
  const rec: LeaseRecord = { comment: { ...written }, lease, finished: false };
  back.records.push(rec);
  back.standing = standings(back.records, ctx.now());
  return rec;
}

/** What happened on the ticket since `first` that no claim may start on: closed, handed off, or worked by another claim. */
function overtaken(ctx: ClaimContext, first: TicketReading, back: TicketReading, nonce: string): { why: string; link: string } | null {
  if (back.issue.state !== "open") return { why: "the ticket was closed", link: back.issue.url };
  if (back.issue.labels.includes(ctx.options.labels.human))
    return { why: `the ticket was handed to a person (${ctx.options.labels.human})`, link: back.issue.url };
  const seen = new Set(first.records.map((r) => r.comment.id));
  const ended = back.records.find(
    (r) => r.lease?.nonce !== nonce && !seen.has(r.comment.id) && (r.finished || (r.lease && ["finished", "handed-off", "released"].includes(r.lease.state))),
  );
  if (ended)
    return {
      why: `another claim was made and ${ended.finished || ended.lease?.state === "finished" ? "finished" : `ended (${ended.lease?.state})`}`,
      link: ended.comment.url,
    };
  return null;
}

function decide(ctx: ClaimContext, first: TicketReading, back: TicketReading, lease: Lease, written: TrackerComment | null): ReadBack {
  const mine = findMine(ctx, back, lease, written);
  if (!mine) return { kind: "missing", back };
  const over = overtaken(ctx, first, back, lease.nonce);
  if (over) return { kind: "overtaken", back, mine, ...over };
  // A newer build's lease, whenever it landed, holds against this build (ADR 0421).
  const winner = back.standing.live.find(isNewer) ?? back.standing.winner;
  if (winner?.lease?.nonce !== lease.nonce) return { kind: "lost", back, mine, winner };
  return { kind: "won", back, mine };
}

/** The read-back from the claim write's own answer (no request of its own). */
export async function readBackFromWrite(
  ctx: ClaimContext,
  ticket: number,
  lease: Lease,
  written: TrackerComment | null,
  thread: IssueThread,
  first: TicketReading,
): Promise<ReadBack> {
  return decide(ctx, first, await ctx.reading(ticket, thread, first.viewer), lease, written);
}

/** The read-back of a write whose answer was lost: one read, a settle after the write. */
export async function readBack(ctx: ClaimContext, ticket: number, lease: Lease, written: TrackerComment | null, first: TicketReading): Promise<ReadBack> {
  await ctx.options.clock.sleep(ctx.options.lease.settleMs);
  return decide(ctx, first, await ctx.read(ticket), lease, written);
}
