/**
 * From the trusted lease records on one issue: the claim the board shows (the protocol's winner,
 * or failing that the stale claim someone may take over) and the record that explains a ticket
 * nobody holds. The rules themselves are the claims code's (src/core/claims/lease-standing.ts).
 */
import { compareClaims, isNewer, standings, type CommentInfo, type LeaseRecord } from "../claims/lease-standing";
import type { Lease } from "../schemas/lease";

export interface ShownClaim {
  lease: Lease;
  comment: CommentInfo;
  expired: boolean;
}

export function currentClaim(records: LeaseRecord[], now: Date): ShownClaim | null {
  const s = standings(records, now);
  if (s.winner?.lease) return { lease: s.winner.lease, comment: s.winner.comment, expired: false };
  const stale = s.stale.filter((r) => r.lease !== null).sort((a, b) => compareClaims(a.lease as Lease, b.lease as Lease))[0];
  return stale?.lease ? { lease: stale.lease, comment: stale.comment, expired: true } : null;
}

/** A live lease a newer Ticket Runner wrote: it holds the ticket, and this build cannot say more of it (ADR 0421). */
export function newerHold(records: LeaseRecord[], now: Date): LeaseRecord | null {
  return standings(records, now).live.find(isNewer) ?? null;
}

/** The most recently written record that holds nothing (finished, released, yielded, handed off, displaced). */
export function latestRecord(records: LeaseRecord[], now: Date): LeaseRecord | null {
  const s = standings(records, now);
  let best: LeaseRecord | null = null;
  for (const r of [...s.records, ...s.displaced]) {
    if (!best || Date.parse(r.comment.updatedAt) > Date.parse(best.comment.updatedAt)) best = r;
  }
  return best;
}
