/**
 * What the Run needs from the claim protocol (src/core/claims/). The Run never touches labels,
 * assignees or lease comments itself: it asks the gate, so every way of holding a ticket goes
 * through one protocol (docs/claims.md).
 */
import type { TrackerComment } from "../ports/tracker";
import type { Refusal } from "./errors";
import type { Lease } from "./schemas/lease";
import type { GithubId } from "./schemas/github-id";
import type { NotedSessions } from "./schemas/run-json";

export interface HeldClaim {
  ticket: number;
  commentId: GithubId;
  commentUrl: string;
  lease: Lease;
  /** `<run root>/<owner>__<repo>/issue-<n>/` holding run.json. */
  runDir: string;
  /** Set once this claim stood down: why, and what it wrote to GitHub doing so (the Run's log says it). */
  stoodDown?: StoodDown;
  /**
   * Won on its write's own answer (ADR 0380): the claim's next read waits until this time (ms since
   * the epoch, a settle after the write), so that read shows any lease that landed before ours even
   * when GitHub's reads lag, and judges the claim again.
   */
  confirmAfter?: number;
  /** The agent sessions this Host's local claim had noted when this claim was adopted (ADR 0452). */
  sessions?: NotedSessions;
}

export interface StoodDown {
  why: string;
  /** What was written, in words: "nothing", "its lease marked race-yielded, ...". */
  wrote: string;
}

export type ClaimAttempt =
  /**
   * `comments`: the comments as the claim's read-back saw them, so the Run needs no read of
   * its own (the read-back is folded into it: a claim costs the Run a read and a write, #17).
   */
  | { kind: "won"; claim: HeldClaim; comments?: TrackerComment[] }
  /** Refused (live claim elsewhere, local claim exists) or lost the read-after-write race: start nothing. */
  | { kind: "lost"; reason: string; link?: string; refusal?: Refusal };

/** Why a claim is released: a rate limit names when it resets, and the released lease keeps it. */
export interface ReleaseWhy {
  limitResetsAt?: string | null;
}

export interface ClaimGate {
  /** A Frontier ticket, through the whole protocol: read, refuse, local claim, write, settle, read back. */
  claim(ticket: number): Promise<ClaimAttempt>;
  /** A Stranded ticket this user already holds on the board: takes the local claim and rewrites the lease in place. */
  adopt(ticket: number): Promise<ClaimAttempt>;
  /** Renews `expiresAt` and re-reads rival leases. "yield" means an earlier claim was found: stop the ticket. */
  heartbeat(claim: HeldClaim): Promise<"held" | "yield">;
  /**
   * Read-only re-check: call it before the first push. "yield" means an earlier claim or a take-over
   * was found (the gate has already stood down): stop the ticket. Optional only so older fakes still
   * type-check; the protocol (src/core/claims/claim-protocol.ts) implements it.
   */
  recheck?(claim: HeldClaim): Promise<"held" | "yield">;
  /**
   * A closed issue that still carries this user's claim (a Run killed after its merge landed, before
   * it finished the claim): every live or stale lease of this user is marked finished and
   * in-progress comes off, so no lease outlives its Run. Optional only so older fakes still type-check.
   */
  closeOut?(ticket: number): Promise<void>;
  /**
   * Checkpoint: the lease records the Stage now running, written only while the claim still holds
   * as read back just before. "yield": it no longer holds (the gate has stood down): stop the ticket.
   */
  markStage(claim: HeldClaim, stage: string): Promise<"held" | "yield">;
  /**
   * Notes the claim's agent sessions in this Host's local claim (run.json), where a Run killed
   * mid-Stage leaves them for the next Run on this Host: no GitHub or git write (ADR 0452).
   * Nothing is noted once the claim has ended or stood down.
   */
  noteSessions(claim: HeldClaim, stages: Readonly<Record<string, string>>): Promise<void>;
  /** Merge: lease finished, in-progress off, local claim archived. */
  finish(claim: HeldClaim): Promise<void>;
  /** Rate limit: ready-for-agent on, in-progress off, unassign last; lease released (with the limit's reset time). No comment. */
  release(claim: HeldClaim, why?: ReleaseWhy): Promise<void>;
  /** Hand-off: ready-for-human on, in-progress off, unassign; lease handed-off. */
  handOff(claim: HeldClaim): Promise<void>;
}
