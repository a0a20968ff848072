/**
 * From the lease readings on one issue: which live claim the board shows, and which record
 * (finished, released, yielded, handed off) explains a ticket nobody holds.
 */
import type { Lease } from "../schemas/lease";
import type { CommentRef, LeaseReading } from "./types";

export interface LiveClaim {
  lease: Lease;
  comment: CommentRef;
  expired: boolean;
}

export type PastRecord =
  | { kind: "lease"; lease: Lease; comment: CommentRef }
  | { kind: "finished-legacy"; comment: CommentRef };

const LIVE_STATES = new Set<Lease["state"]>(["claimed", "running"]);

export function isExpired(lease: Lease, now: Date): boolean {
  // A person's claim never goes stale for a machine (BRIEF §3).
  if (lease.holder === "person" || lease.expiresAt === null) return false;
  return Date.parse(lease.expiresAt) <= now.getTime();
}

/**
 * The claim protocol's winner rule, applied to what is on the issue right now: the earliest
 * `claimedAt`, then the smallest `nonce`. While a take-over-stale is in flight both the old
 * (expired) and the new lease read as live; an unexpired lease beats an expired one.
 */
export function currentClaim(readings: LeaseReading[], now: Date): LiveClaim | null {
  const live: LiveClaim[] = [];
  for (const r of readings) {
    if (r.kind !== "lease" || !LIVE_STATES.has(r.lease.state)) continue;
    live.push({ lease: r.lease, comment: r.comment, expired: isExpired(r.lease, now) });
  }
  if (live.length === 0) return null;
  const fresh = live.filter((c) => !c.expired);
  const pool = fresh.length > 0 ? fresh : live;
  pool.sort(
    (a, b) =>
      Date.parse(a.lease.claimedAt) - Date.parse(b.lease.claimedAt) ||
      (a.lease.nonce < b.lease.nonce ? -1 : a.lease.nonce > b.lease.nonce ? 1 : 0),
  );
  return pool[0] ?? null;
}

/** The most recently written record that is not a live claim. */
export function latestRecord(readings: LeaseReading[]): PastRecord | null {
  let best: PastRecord | null = null;
  for (const r of readings) {
    if (r.kind === "lease" && LIVE_STATES.has(r.lease.state)) continue;
    if (!best || Date.parse(r.comment.updatedAt) > Date.parse(best.comment.updatedAt)) best = r;
  }
  return best;
}
