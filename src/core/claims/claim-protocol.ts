/**
 * The claim protocol behind the ClaimGate (src/core/claim-gate.ts): the one way any front door
 * holds a ticket. Construct it with createClaimGate(options) (see ClaimProtocolOptions).
 *
 * The Run (holder "machine") uses the ClaimGate methods. The CLI (holder "person") also uses
 * take / resume / releaseByHand, which throw a Refusal carrying the message, link and next command.
 */
import type { ClaimAttempt, ClaimGate, HeldClaim, ReleaseWhy } from "../claim-gate";
import { isRefusal } from "../errors";
import { adoptClaim } from "./adopt";
import { ClaimContext, type ClaimProtocolOptions } from "./claim-context";
import { type TicketReading } from "./ticket-reading";
import { endClaim, sameUser } from "./claim-endings";
import { end, heartbeat, markStage, recheck } from "./lifecycle";
import { noteSessions } from "./noted-sessions";
import { parseTicketNumber } from "./marker";
import { badTicket } from "./refusals";
import { releaseByHand, type ReleaseReport } from "./release-by-hand";
import { takeClaim, type ClaimWon, type TakeOptions } from "./take-claim";

export type { ClaimProtocolOptions } from "./claim-context";
export type { ClaimWon, TakeOptions } from "./take-claim";
export type { ReleaseReport } from "./release-by-hand";

function assertTicket(ticket: number): void {
  if (!Number.isSafeInteger(ticket) || ticket <= 0 || parseTicketNumber(String(ticket)) === null) throw badTicket(String(ticket));
}

function lost(error: unknown): ClaimAttempt {
  if (!isRefusal(error)) throw error;
  return { kind: "lost", reason: error.message, link: error.details.link, refusal: error };
}

export class ClaimProtocol implements ClaimGate {
  readonly ctx: ClaimContext;

  constructor(options: ClaimProtocolOptions) {
    this.ctx = new ClaimContext(options);
  }

  get session(): string {
    return this.ctx.session;
  }

  /** The whole protocol; throws a Refusal for every "no". */
  async take(ticket: number, opts: TakeOptions = {}): Promise<ClaimWon> {
    assertTicket(ticket);
    return takeClaim(this.ctx, ticket, opts);
  }

  /** Re-enter a claim this user holds from this Host (a new session for it). */
  async resume(ticket: number, opts: { runDir?: string } = {}): Promise<ClaimWon> {
    assertTicket(ticket);
    return adoptClaim(this.ctx, ticket, opts);
  }

  /** Reads one ticket's claims (trusted leases only; ignored ones listed with reasons). */
  async read(ticket: number): Promise<TicketReading> {
    assertTicket(ticket);
    return this.ctx.read(ticket);
  }

  async claim(ticket: number): Promise<ClaimAttempt> {
    try {
      const won = await this.take(ticket);
      return { kind: "won", claim: won.claim, comments: won.comments };
    } catch (error) {
      return lost(error);
    }
  }

  async adopt(ticket: number): Promise<ClaimAttempt> {
    try {
      const won = await this.resume(ticket);
      return { kind: "won", claim: won.claim, comments: won.comments };
    } catch (error) {
      return lost(error);
    }
  }

  /**
   * One held claim's calls take turns, and once an ending has begun nothing renews or re-judges it.
   * The Run's heartbeat is a timer beside the pipeline: a heartbeat overlapping an ending would
   * otherwise rewrite the ended lease as live again (blocking the next Run until it expires), or read
   * our own ending as a rival's and mark the lease superseded.
   */
  private readonly turns = new WeakMap<HeldClaim, Promise<unknown>>();
  private readonly ended = new WeakSet<HeldClaim>();

  private inTurn<T>(claim: HeldClaim, step: () => Promise<T>): Promise<T> {
    const mine = (this.turns.get(claim) ?? Promise.resolve()).then(step, step);
    this.turns.set(
      claim,
      mine.catch(() => undefined),
    );
    return mine;
  }

  /** A claim that has stood down is never read or written again: it answers "yield" by itself. */
  heartbeat(claim: HeldClaim): Promise<"held" | "yield"> {
    return this.inTurn(claim, async () => (claim.stoodDown ? "yield" : this.ended.has(claim) ? "held" : heartbeat(this.ctx, claim)));
  }

  /** Read-only re-check, before the first push: "yield" means stop the ticket now. */
  recheck(claim: HeldClaim): Promise<"held" | "yield"> {
    return this.inTurn(claim, async () => (claim.stoodDown ? "yield" : this.ended.has(claim) ? "held" : recheck(this.ctx, claim)));
  }

  markStage(claim: HeldClaim, stage: string): Promise<"held" | "yield"> {
    return this.inTurn(claim, async () => (claim.stoodDown ? "yield" : this.ended.has(claim) ? "held" : markStage(this.ctx, claim, stage)));
  }

  /** Local only, but in the claim's turn: an ending archives run.json, and a note after it would bring a stale one back. */
  noteSessions(claim: HeldClaim, stages: Readonly<Record<string, string>>): Promise<void> {
    return this.inTurn(claim, async () => {
      if (claim.stoodDown || this.ended.has(claim)) return;
      await noteSessions(this.ctx, claim, stages);
    });
  }

  private ending(claim: HeldClaim, ending: "finished" | "released" | "handed-off", why?: ReleaseWhy): Promise<void> {
    return this.inTurn(claim, async () => {
      if (claim.stoodDown) return;
      this.ended.add(claim);
      await end(this.ctx, claim, ending, why);
    });
  }

  finish(claim: HeldClaim): Promise<void> {
    return this.ending(claim, "finished");
  }

  release(claim: HeldClaim, why?: ReleaseWhy): Promise<void> {
    return this.ending(claim, "released", why);
  }

  handOff(claim: HeldClaim): Promise<void> {
    return this.ending(claim, "handed-off");
  }

  /** See ClaimGate.closeOut: a closed issue's leftover claims of this user become finished records. */
  async closeOut(ticket: number): Promise<void> {
    assertTicket(ticket);
    const ctx = this.ctx;
    const reading = await ctx.read(ticket);
    if (reading.issue.state !== "closed") return;
    const mine = [...reading.standing.live, ...reading.standing.stale].filter((r) => r.lease && sameUser(r.comment.author, reading.viewer));
    for (const rec of mine) {
      const claim: HeldClaim = {
        ticket,
        commentId: rec.comment.id,
        commentUrl: rec.comment.url,
        lease: rec.lease!,
        runDir: ctx.options.runRoot.dirFor(ctx.options.tracker.repo, ticket),
      };
      await endClaim(ctx, claim, "finished", reading);
    }
    if (mine.length === 0 && reading.issue.labels.includes(ctx.options.labels.inProgress)) {
      await ctx.options.tracker.writeIssue(ticket, { removeLabels: [ctx.options.labels.inProgress] });
    }
  }

  /**
   * `ticket-runner release <n>`: puts back a ticket this user holds (any of their Hosts): lease
   * released, ready-for-agent on, in-progress off, unassigned last; this Host's run moved aside.
   * Refused, with nothing changed, when the ticket is not theirs (release-by-hand.ts, ADR 0120).
   */
  async releaseByHand(ticket: number, opts: { runDir?: string } = {}): Promise<ReleaseReport> {
    assertTicket(ticket);
    return releaseByHand(this.ctx, ticket, opts);
  }
}

/** The entry point: `createClaimGate(options)` gives the Run its ClaimGate (and the CLI the rest). */
export function createClaimGate(options: ClaimProtocolOptions): ClaimProtocol {
  return new ClaimProtocol(options);
}
