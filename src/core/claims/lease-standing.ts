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
 * - A lease a newer Ticket Runner wrote (a version this build does not read) is live: it may be a
 *   claim or a take-over, and this build cannot tell (ADR 0421).
 * - Among live claims the one whose comment landed first wins: GitHub's comment ids grow in the
 *   order comments are created, so everyone who reads the same two leases ranks them the same way,
 *   and a claimer whose write's own answer shows no earlier live claim is the winner (ADR 0380,
 *   which replaced the earliest-`claimedAt` order and ADR 0172's late-landing rule).
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

/**
 * One trusted marker comment. `lease` is null for an older finished line without lease JSON, and for
 * a lease a newer Ticket Runner wrote (`newer`: its version), which this build cannot read.
 */
export interface LeaseRecord {
  comment: CommentInfo;
  lease: Lease | null;
  finished: boolean;
  newer?: number;
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
  // A newer build's lease may be a claim, a take-over naming ours, or a record: this build cannot tell, so it holds (ADR 0421).
  if (isNewer(record)) return "live";
  const lease = record.lease;
  if (!lease || record.finished || !CLAIM_STATES.has(lease.state)) return "record";
  if (displaced.has(lease.nonce)) return "displaced";
  if (isExpired(lease, now)) return "stale";
  return "live";
}

/** A lease a newer Ticket Runner wrote and has not marked finished: it holds the ticket for this build (ADR 0421). */
export function isNewer(record: LeaseRecord): boolean {
  return record.newer !== undefined && !record.finished;
}

/** The order claims were stamped in: for display and among one user's own leases; which claim holds a ticket is rankClaims'. */
export function compareClaims(a: Lease, b: Lease): number {
  const t = Date.parse(a.claimedAt) - Date.parse(b.claimedAt);
  if (t !== 0) return t;
  return a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0;
}

/** Which of two GitHub ids came first (decimal strings, past 2^53 on github.com: ADR 0130). */
export function compareIds(a: GithubId, b: GithubId): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The order among claims: the comment that landed first (smallest comment id) first (ADR 0380). */
export function rankClaims(a: LeaseRecord, b: LeaseRecord): number {
  return compareIds(a.comment.id, b.comment.id);
}

export interface Standings {
  live: LeaseRecord[];
  stale: LeaseRecord[];
  displaced: LeaseRecord[];
  records: LeaseRecord[];
  /** The live claim that holds the ticket, or null. */
  winner: LeaseRecord | null;
}

export function standings(records: LeaseRecord[], now: Date): Standings {
  const gone = displacedNonces(records);
  const out: Standings = { live: [], stale: [], displaced: [], records: [], winner: null };
  for (const r of records) {
    const s = standingOf(r, gone, now);
    if (s === "live") out.live.push(r);
    else if (s === "stale") out.stale.push(r);
    else if (s === "displaced") out.displaced.push(r);
    else out.records.push(r);
  }
  out.live.sort(rankClaims);
  out.winner = out.live[0] ?? null;
  return out;
}
