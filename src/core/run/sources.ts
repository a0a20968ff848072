/**
 * Where a free Lane's next ticket comes from: Stranded tickets first (lowest number first), then
 * the narrowed list or the Frontier. While Stranded tickets fill every Lane the Frontier is not
 * asked at all, because it is only asked when a Lane is free and no Stranded ticket is left.
 */
import type { RunEnv, TrustCheck } from "./context";
import { errorText } from "./context";
import { MAX_SPREAD, eligibility, firstFillOrder, frontierCandidates, spreadOrder, stripeOrder } from "./frontier";
import { guardCriteria } from "./guards";
import type { StrandedTicket } from "./sweep";
import type { Candidate } from "./take";

export type SkipReporter = (ticket: number, reason: string) => void;

/**
 * What the Run's lock showed of other Hosts' Runs (ADR 0441): `anchor`, the ticket its first
 * `picks` Frontier picks start from (firstFillAnchor; null: the lowest), and whether any other
 * Host's Run holds a lock at all.
 */
export interface Company {
  anchor: number | null;
  picks: number;
  others: boolean;
  /** The tickets it prefers after its first fill (stripeOf, ADR 0451), asked once, at its first pick after it; null: none. */
  stripe?: () => Promise<ReadonlySet<number> | null>;
}

export const ALONE: Company = { anchor: null, picks: 0, others: false };

export class TicketSources {
  private readonly stranded: StrandedTicket[];
  /**
   * How many of the lowest Frontier tickets a pick chooses among (ADR 0182): 1 (strictly lowest
   * first) until a take is lost to a rival, then wider with every loss.
   */
  private spread: number;
  private picks = 0;
  /** The Run's stripe once asked (undefined: not yet). */
  private stripe: ReadonlySet<number> | null | undefined;

  constructor(
    private readonly env: RunEnv,
    stranded: StrandedTicket[],
    private readonly narrowed: number[] | null,
    private readonly trust: TrustCheck,
    private readonly skip: SkipReporter,
    private readonly company: Company = ALONE,
  ) {
    this.stranded = [...stranded].sort((a, b) => a.ticket - b.ticket);
    // A Run that knows from its lock that it is not alone starts as wide as one lost take would make it.
    this.spread = company.others ? 4 : 1;
  }

  /** The Run's stripe (ADR 0451); a failed read of the other Hosts' locks is logged, and the picks spread as without one. */
  private async askStripe(): Promise<ReadonlySet<number> | null> {
    try {
      return (await this.company.stripe?.()) ?? null;
    } catch (error) {
      this.env.deps.log.warn("could not read the other Hosts' locks; the next picks spread as usual", { error: errorText(error) });
      return null;
    }
  }

  /** A Frontier ticket was lost to another claimer: others are reaching for the same head of the queue. */
  contended(): void {
    this.spread = Math.min(this.spread * 4, MAX_SPREAD);
  }

  /** `seen` holds every ticket this Run already took or skipped; the source adds the ones it skips. */
  async next(seen: Set<number>): Promise<Candidate | null> {
    for (;;) {
      const s = this.stranded.shift();
      if (!s) break;
      if (!seen.has(s.ticket)) return { kind: "stranded", issue: s.issue, state: s.state };
    }
    return this.narrowed ? this.nextNarrowed(seen) : this.nextFrontier(seen);
  }

  private async passesGuard(issue: Candidate["issue"], seen: Set<number>, reportIneligible: boolean): Promise<boolean> {
    const { tracker, log } = this.env.deps;
    let ok;
    try {
      ok = await eligibility(tracker, this.env.config, this.trust, issue);
    } catch (error) {
      log.warn(`#${issue.number}: could not check whether it is on the Frontier`, { error: errorText(error) });
      ok = { ok: false as const, reason: `the tracker could not be asked: ${errorText(error)}` };
    }
    if (!ok.ok) {
      if (reportIneligible) {
        seen.add(issue.number);
        this.skip(issue.number, ok.reason);
      }
      return false;
    }
    const guard = await guardCriteria(tracker, log, issue, this.env.config.labels.ready);
    if (!guard.pass) {
      seen.add(issue.number);
      this.skip(issue.number, guard.reason);
      return false;
    }
    return true;
  }

  private async nextNarrowed(seen: Set<number>): Promise<Candidate | null> {
    const { tracker } = this.env.deps;
    for (const n of this.narrowed ?? []) {
      if (seen.has(n)) continue;
      let issue;
      try {
        issue = await tracker.getIssue(n);
      } catch (error) {
        seen.add(n);
        this.skip(n, `the tracker could not be asked: ${errorText(error)}`);
        continue;
      }
      if (!issue) {
        seen.add(n);
        this.skip(n, "no such issue");
        continue;
      }
      if (await this.passesGuard(issue, seen, true)) return { kind: "frontier", issue };
    }
    return null;
  }

  private async nextFrontier(seen: Set<number>): Promise<Candidate | null> {
    let open;
    try {
      open = await frontierCandidates(this.env.deps.tracker, this.env.config, seen);
    } catch (error) {
      this.env.deps.log.warn("could not list the Frontier", { error: errorText(error) });
      return null;
    }
    this.picks += 1;
    const spread = (items: typeof open) => spreadOrder(items, this.spread, `${this.env.deps.host.identity().id}:${this.env.runId}:${this.picks}`);
    const anchor = this.picks <= this.company.picks ? this.company.anchor : null;
    if (this.picks > this.company.picks && this.stripe === undefined) this.stripe = await this.askStripe();
    const stripe = this.stripe;
    const order = anchor !== null ? firstFillOrder(open, anchor) : stripe ? stripeOrder(open, stripe, MAX_SPREAD, spread) : spread(open);
    for (const issue of order) {
      if (await this.passesGuard(issue, seen, false)) return { kind: "frontier", issue };
    }
    return null;
  }
}
