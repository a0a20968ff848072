/**
 * A held claim over time: heartbeat (renew + re-check), recheck (before the first push), stage
 * checkpoints, and the endings. A later discovery of an earlier claim, or of a take-over naming
 * ours, makes ours stand down (docs/claims.md, "The order of a claim").
 */
import type { HeldClaim, ReleaseWhy } from "../claim-gate";
import type { Lease } from "../schemas/lease";
import type { ClaimContext } from "./claim-context";
import type { TicketReading } from "./ticket-reading";
import { endClaim, standAside, standDown, type Ending, type StandDownResult } from "./claim-endings";
import { archiveTail, renderLeaseComment } from "./lease-comment";
import { isNewer, rankClaims, type LeaseRecord } from "./lease-standing";

export type Verdict = { kind: "held"; record: LeaseRecord } | { kind: "yield"; why: string; state: "race-yielded" | "superseded"; winner: LeaseRecord | null };

/** Does `claim` still hold its ticket, judging by `reading`? */
export function judge(claim: HeldClaim, reading: TicketReading): Verdict {
  const nonce = claim.lease.nonce;
  const record = reading.records.find((r) => r.lease?.nonce === nonce) ?? null;
  const winner = reading.standing.winner;
  if (!record) return { kind: "yield", why: "our lease comment is gone", state: "superseded", winner };
  const taker = reading.records.find((r) => r.lease?.takeover && (r.lease.takeover.from === nonce || r.lease.takeover.also?.includes(nonce))) ?? null;
  if (taker || reading.standing.displaced.includes(record) || record.lease?.state === "superseded") {
    return { kind: "yield", why: "a take-over displaced our lease", state: "superseded", winner: taker ?? winner };
  }
  const state = record.lease?.state;
  if (record.finished || (state !== "claimed" && state !== "running")) {
    return { kind: "yield", why: `our lease now reads "${record.finished ? "finished" : state}"`, state: "superseded", winner };
  }
  // A newer build's lease may be a take-over naming ours: this build cannot read it, so it does not hold against it (ADR 0421).
  const newer = reading.standing.live.find(isNewer);
  if (newer) return { kind: "yield", why: `a lease from a newer Ticket Runner (version ${newer.newer}) turned up`, state: "race-yielded", winner: newer };
  // Our own lease may have expired (a late heartbeat); it still holds unless someone earlier is live.
  const earlier = reading.standing.live.find((r) => r.lease && r.lease.nonce !== nonce && rankClaims(r, record) < 0);
  if (earlier) return { kind: "yield", why: "an earlier claim turned up", state: "race-yielded", winner: earlier };
  return { kind: "held", record };
}

/**
 * Stands this claim down as `verdict` says: a lost race marks its lease race-yielded; a displaced or
 * ended lease is written nothing more (standAside). What was written is kept on the claim, for the Run.
 */
export async function yieldNow(
  ctx: ClaimContext,
  claim: HeldClaim,
  reading: TicketReading,
  verdict: Extract<Verdict, { kind: "yield" }>,
): Promise<StandDownResult> {
  ctx.options.log.warn("claim lost after the fact; standing down", { ticket: claim.ticket, why: verdict.why, holder: verdict.winner?.comment.url ?? null });
  const common = { ticket: claim.ticket, mine: claim.lease, commentId: claim.commentId, reading, runDir: claim.runDir, why: verdict.why };
  const done =
    verdict.state === "race-yielded"
      ? await standDown(ctx, { ...common, viewer: reading.viewer, winner: verdict.winner })
      : await standAside(ctx, { ...common, takenBy: verdict.winner });
  claim.lease = { ...claim.lease, state: verdict.state };
  claim.stoodDown = { why: verdict.why, wrote: done.wrote };
  return done;
}

/** The lease, rewritten in place (its archive below `<details>` kept). */
async function rewrite(ctx: ClaimContext, claim: HeldClaim, lease: Lease, reading: TicketReading): Promise<void> {
  const rec = reading.records.find((r) => r.comment.id === claim.commentId);
  await ctx.options.tracker.updateComment(claim.commentId, renderLeaseComment(lease, rec ? archiveTail(rec.comment.body ?? "") : ""));
  claim.lease = lease;
}

/** How many more reads the first read after a claim may take while it does not show the claim's own lease. */
export const LAGGING_READS = 4;

/**
 * The ticket as a held claim reads it. The first read after a claim won on its write's answer comes a
 * settle after the write (HeldClaim.confirmAfter). Our write landed (it returned our comment), so a
 * read that does not show our own lease lags behind it, and cannot show the rivals that landed before
 * it either: that read is asked again, a settle on, up to LAGGING_READS times, before the claim is
 * judged on it. Only then is a missing lease taken as gone (ADR 0380).
 */
export async function readHeld(ctx: ClaimContext, claim: HeldClaim): Promise<TicketReading> {
  const confirming = claim.confirmAfter !== undefined;
  const wait = (claim.confirmAfter ?? 0) - ctx.now().getTime();
  if (wait > 0) await ctx.options.clock.sleep(wait);
  let reading = await ctx.read(claim.ticket);
  for (let i = 0; confirming && i < LAGGING_READS && !showsOwnLease(claim, reading); i++) {
    await ctx.options.clock.sleep(ctx.options.lease.settleMs);
    reading = await ctx.read(claim.ticket);
  }
  delete claim.confirmAfter;
  return reading;
}

function showsOwnLease(claim: HeldClaim, reading: TicketReading): boolean {
  return reading.records.some((r) => r.lease?.nonce === claim.lease.nonce);
}

/**
 * Reads the ticket and judges the claim; stands it down when it no longer holds. A claim won on its
 * write's answer is read a settle after the write at the earliest (HeldClaim.confirmAfter). Every lease write
 * goes through here first, so a Run that was frozen past its lease's expiry and taken over writes
 * nothing more to that lease when it wakes (ADR 0171).
 */
async function holding(ctx: ClaimContext, claim: HeldClaim): Promise<TicketReading | null> {
  const reading = await readHeld(ctx, claim);
  const verdict = judge(claim, reading);
  if (verdict.kind === "held") return reading;
  await yieldNow(ctx, claim, reading, verdict);
  return null;
}

/** Read-only re-check (before the first push, the pull request, an ending): 1 request. */
export async function recheck(ctx: ClaimContext, claim: HeldClaim): Promise<"held" | "yield"> {
  return (await holding(ctx, claim)) ? "held" : "yield";
}

/** Re-check, then renew `expiresAt`: 2 requests. */
export async function heartbeat(ctx: ClaimContext, claim: HeldClaim): Promise<"held" | "yield"> {
  const reading = await holding(ctx, claim);
  if (!reading) return "yield";
  const now = ctx.now();
  const renewed: Lease = { ...claim.lease, expiresAt: claim.lease.holder === "person" ? null : ctx.expiresAt(now), renewedAt: now.toISOString() };
  await rewrite(ctx, claim, renewed, reading);
  return "held";
}

/** Checkpoint: the lease names the Stage now running (and is renewed), if it still holds: 2 requests. */
export async function markStage(ctx: ClaimContext, claim: HeldClaim, stage: string): Promise<"held" | "yield"> {
  const reading = await holding(ctx, claim);
  if (!reading) return "yield";
  const now = ctx.now();
  const lease: Lease = {
    ...claim.lease,
    state: "running",
    stage: stage.slice(0, 40),
    stageStartedAt: now.toISOString(),
    expiresAt: claim.lease.holder === "person" ? null : ctx.expiresAt(now),
    renewedAt: now.toISOString(),
  };
  await rewrite(ctx, claim, lease, reading);
  return "held";
}

/** Finish, release or hand off: reads first, so a claim that was lost meanwhile never touches the holder's labels. */
export async function end(ctx: ClaimContext, claim: HeldClaim, ending: Ending, why?: ReleaseWhy): Promise<string | null> {
  const reading = await holding(ctx, claim);
  if (!reading) return null;
  return endClaim(ctx, claim, ending, reading, why);
}
