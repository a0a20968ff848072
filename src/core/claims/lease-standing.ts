/**
 * What a set of trusted lease records means right now: which are live claims, which are stale,
 * which were displaced by a take-over, and who wins (docs/adr/0040-claim-protocol.md).
 *
 * Rules:
 * - Only `claimed` / `running` leases are claims. Finished, released, handed-off, race-yielded and
 *   superseded leases are records.
 * - A lease named in any trusted lease's `takeover` is displaced, whatever its own comment says now:
 *   comment edits are last-writer-wins, so a heartbeat racing the take-over's edit must not revive it.
 * - A machine lease past `expiresAt` is stale: it no longer holds the ticket and may be taken over.
 *   A person's lease (or one without an expiry) is never stale for a machine.
 * - Among live claims the earliest `claimedAt` wins, then the smallest `nonce`; a claim whose
 *   comment landed later than the settle allows (isLate) ranks after every claim that did not.
 */
import type { Lease } from "../schemas/lease";
import type { GithubId } from "../schemas/github-id";

export interface CommentInfo {
  id: GithubId;
  url: string;
  author: string;
  createdAt: string;
  updatedAt: string;
  /** The whole body as read, so a rewrite can keep its archive (`<details>` onwards). */
  body?: string;
}

/** One trusted marker comment. `lease` is null for an older finished line without lease JSON. */
export interface LeaseRecord {
  comment: CommentInfo;
  lease: Lease | null;
  finished: boolean;
}

export type Standing = "live" | "stale" | "displaced" | "record";

const CLAIM_STATES = new Set<Lease["state"]>(["claimed", "running"]);

function isExpired(lease: Lease, now: Date): boolean {
  if (lease.holder === "person" || lease.expiresAt === null) return false;
  return Date.parse(lease.expiresAt) <= now.getTime();
}

/** Nonces named by any lease's take-over: those leases hold nothing any more. */
function displacedNonces(records: LeaseRecord[]): Set<string> {
  const out = new Set<string>();
  for (const r of records) {
    const t = r.lease?.takeover;
    if (!t) continue;
    out.add(t.from);
    for (const n of t.also ?? []) out.add(n);
  }
  return out;
}

export function standingOf(record: LeaseRecord, displaced: Set<string>, now: Date): Standing {
  const lease = record.lease;
  if (!lease || record.finished || !CLAIM_STATES.has(lease.state)) return "record";
  if (displaced.has(lease.nonce)) return "displaced";
  if (isExpired(lease, now)) return "stale";
  return "live";
}

export function compareClaims(a: Lease, b: Lease): number {
  const t = Date.parse(a.claimedAt) - Date.parse(b.claimedAt);
  if (t !== 0) return t;
  return a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0;
}

/**
 * A claim whose comment landed (GitHub's `createdAt`, whole seconds) more than `lateMs` after its
 * own `claimedAt`: its write was held up (a secondary rate limit, a slow network) past what the
 * settle allows for. It ranks after every claim that landed in time, whatever its `claimedAt`
 * (ADR 0172). Everyone reads the same two stamps, so everyone ranks it the same way.
 */
export function isLate(record: LeaseRecord, lateMs: number | undefined): boolean {
  const lease = record.lease;
  if (!lease || lateMs === undefined) return false;
  const landed = Date.parse(record.comment.createdAt);
  const stamped = Date.parse(lease.claimedAt);
  return Number.isFinite(landed) && Number.isFinite(stamped) && landed - stamped > lateMs;
}

/** The order among claims: made in time before late, then earliest `claimedAt`, then smallest `nonce`. */
export function rankClaims(a: LeaseRecord, b: LeaseRecord, lateMs: number | undefined): number {
  return Number(isLate(a, lateMs)) - Number(isLate(b, lateMs)) || compareClaims(a.lease as Lease, b.lease as Lease);
}

export interface Standings {
  live: LeaseRecord[];
  stale: LeaseRecord[];
  displaced: LeaseRecord[];
  records: LeaseRecord[];
  /** The live claim that holds the ticket, or null. */
  winner: LeaseRecord | null;
}

/** `lateMs`: rank late claims last (the protocol passes it; a display of who holds what need not). */
export function standings(records: LeaseRecord[], now: Date, lateMs?: number): Standings {
  const gone = displacedNonces(records);
  const out: Standings = { live: [], stale: [], displaced: [], records: [], winner: null };
  for (const r of records) {
    const s = standingOf(r, gone, now);
    if (s === "live") out.live.push(r);
    else if (s === "stale") out.stale.push(r);
    else if (s === "displaced") out.displaced.push(r);
    else out.records.push(r);
  }
  out.live.sort((a, b) => rankClaims(a, b, lateMs));
  out.winner = out.live[0] ?? null;
  return out;
}
