/**
 * Step 6 of a claim: when to read every lease back, and what the read-back must show for the claim
 * to stand (ADR 0172). A claim write can land late (a secondary rate limit refused it and a retry
 * went through, a slow network), carrying the `claimedAt` stamped before it was first sent.
 *
 * - A claim that landed more than `lateMs` after its stamp ranks after every claim that did not
 *   (isLate), so a late write never beats a claim made in time.
 * - The read-back waits until `claimedAt + lateMs + 1 s + settle`: any claim ranked before ours
 *   landed by `claimedAt + lateMs + 1 s` (GitHub stamps whole seconds) and has had a settle's time
 *   to show. A claim that itself landed late reads back once more after as long again, so it also
 *   sees a claim stamped in time just before it landed.
 * - The ticket must still be open and not handed to a person, and no other claim may have ended
 *   on it since our first read (another Run claimed, worked and finished it meanwhile).
 */
import type { TrackerComment } from "../../ports/tracker";
import type { Lease } from "../schemas/lease";
import type { ClaimContext } from "./claim-context";
import type { TicketReading } from "./ticket-reading";
import { isLate, standings, type LeaseRecord } from "./lease-standing";

export type ReadBack =
  | { kind: "missing"; back: TicketReading }
  | { kind: "won"; back: TicketReading; mine: LeaseRecord }
  | { kind: "lost"; back: TicketReading; mine: LeaseRecord; winner: LeaseRecord | null }
  | { kind: "overtaken"; back: TicketReading; mine: LeaseRecord; why: string; link: string };

/** When a claim stamped at `claimedAt` may read back (ms since the epoch). */
function readBackAt(ctx: ClaimContext, claimedAt: string): number {
  return Date.parse(claimedAt) + ctx.lateMs + 1000 + ctx.options.lease.settleMs;
}

async function sleepUntil(ctx: ClaimContext, at: number): Promise<void> {
  await ctx.options.clock.sleep(Math.max(ctx.options.lease.settleMs, at - ctx.now().getTime()));
}

async function readMine(
  ctx: ClaimContext,
  ticket: number,
  lease: Lease,
  written: TrackerComment | null,
): Promise<{ back: TicketReading; mine: LeaseRecord | null }> {
  const back = await ctx.read(ticket);
  let mine = back.records.find((r) => r.lease?.nonce === lease.nonce) ?? null;
  if (!mine && written) {
    // Our own write is not visible yet (read lag longer than the settle): count it anyway.
    mine = { comment: { ...written }, lease, finished: false };
    back.records.push(mine);
    back.standing = standings(back.records, ctx.now(), ctx.lateMs);
  }
  return { back, mine };
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

export async function readBack(ctx: ClaimContext, ticket: number, lease: Lease, written: TrackerComment | null, first: TicketReading): Promise<ReadBack> {
  await sleepUntil(ctx, readBackAt(ctx, lease.claimedAt));
  let { back, mine } = await readMine(ctx, ticket, lease, written);
  if (!mine) return { kind: "missing", back };
  if (isLate(mine, ctx.lateMs)) {
    ctx.options.log.warn("claim write landed late; reading back once more before deciding", {
      ticket,
      claimedAt: lease.claimedAt,
      landed: mine.comment.createdAt,
    });
    await ctx.options.clock.sleep(ctx.lateMs + 1000 + 2 * ctx.options.lease.settleMs);
    ({ back, mine } = await readMine(ctx, ticket, lease, written));
    if (!mine) return { kind: "missing", back };
  }
  const over = overtaken(ctx, first, back, lease.nonce);
  if (over) return { kind: "overtaken", back, mine, ...over };
  const winner = back.standing.winner;
  if (winner?.lease?.nonce !== lease.nonce) return { kind: "lost", back, mine, winner };
  return { kind: "won", back, mine };
}
