/**
 * Injected faults, set through the admin API. They apply to every request except /_sandbox/*
 * (so a test can always turn them off again).
 */
import { z } from "zod";
import { HttpError } from "./http";

export const faultsSchema = z
  .object({
    latencyMs: z.number().int().min(0).max(60_000).optional(),
    jitterMs: z.number().int().min(0).max(60_000).optional(),
    errorRate: z.number().min(0).max(1).optional(),
    errorRoutes: z.string().max(1000).optional(),
    errorStatus: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
    secondaryRateLimit: z
      .object({
        writesPerMinute: z.number().int().min(0),
        status: z.union([z.literal(403), z.literal(429)]),
        retryAfterSeconds: z.number().int().min(0),
        /** Also refuse any one write with this probability (an injected limit that clears by retry-after). */
        rate: z.number().min(0).max(1).optional(),
        /**
         * GraphQL mutations count too, refused in one of GitHub's two shapes: "errors-200" (HTTP 200,
         * the words in errors[].message) or "status" (`status` with the words in `message`).
         * Absent: only REST writes count, as before.
         */
        graphql: z.enum(["errors-200", "status"]).optional(),
      })
      .nullable()
      .optional(),
    readLagMs: z.number().int().min(0).max(600_000).optional(),
    dropRate: z.number().min(0).max(1).optional(),
    /**
     * The next `count` writes whose route ("METHOD /path") matches `routes` are applied, and then
     * the connection is cut before the response: the client cannot tell whether the write landed.
     * GraphQL counts as a write only for a mutation.
     */
    loseResponses: z
      .object({ routes: z.string().max(1000), count: z.number().int().min(1).max(1000) })
      .nullable()
      .optional(),
    /**
     * Writes by `user` whose route ("METHOD /path") matches `routes` wait, before they are applied,
     * until the admin API releases them (`POST /_sandbox/held/release`): a write delayed as long as
     * a test likes (a secondary rate limit, a slow network), landing with the sandbox clock of its
     * release. GraphQL counts as a write only for a mutation.
     */
    holdWrites: z
      .object({ user: z.string().min(1).max(100), routes: z.string().max(1000) })
      .nullable()
      .optional(),
    /** false: act as a GitHub Enterprise Server without issue dependencies (GraphQL rejects `Issue.blockedBy`). */
    issueDependencies: z.boolean().optional(),
    /** Primary rate limit per user per hour (GitHub: 5000). */
    rateLimit: z.number().int().min(1).optional(),
    /**
     * These users' primary budgets are spent now, for the named resources, until `resetInSeconds`
     * from now: REST answers 403 and GraphQL 200 with RATE_LIMITED, both with x-ratelimit-reset
     * at that time (a limit that lasts, or one short enough for the client to wait out).
     */
    spentBudget: z
      .object({
        users: z.array(z.string().min(1).max(100)).min(1).max(100),
        resources: z.array(z.enum(["core", "graphql"])).min(1),
        resetInSeconds: z.number().int().min(1).max(86_400),
      })
      .nullable()
      .optional(),
  })
  .strict();

export type Faults = z.infer<typeof faultsSchema>;

/** GitHub's words for a secondary rate limit (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits). */
const SECONDARY_WORDS =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.";

/** A GraphQL secondary limit in GitHub's 200 shape: the request is refused, the status is 200. */
export class SecondaryAs200 extends Error {
  constructor(
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(message);
  }
}

export class FaultInjector {
  faults: Faults = {};
  private errorRegex: RegExp | null = null;
  private writes = new Map<string, number[]>();

  private lose: { routes: RegExp; left: number } | null = null;
  private holdRule: { user: string; routes: RegExp } | null = null;
  private held: (() => void)[] = [];

  set(f: Faults): void {
    this.releaseHeld();
    this.holdRule = f.holdWrites ? { user: f.holdWrites.user.toLowerCase(), routes: new RegExp(f.holdWrites.routes) } : null;
    this.faults = f;
    this.errorRegex = f.errorRoutes ? new RegExp(f.errorRoutes) : null;
    this.lose = f.loseResponses ? { routes: new RegExp(f.loseResponses.routes), left: f.loseResponses.count } : null;
    this.writes.clear();
  }

  /** Waits while this write is held (see `holdWrites`); resolves at once for any other request. */
  hold(route: string, user: string): Promise<void> {
    const rule = this.holdRule;
    if (!rule || rule.user !== user.toLowerCase() || !rule.routes.test(route)) return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }

  heldCount(): number {
    return this.held.length;
  }

  /** Lets every held write go on; returns how many there were. */
  releaseHeld(): number {
    const waiting = this.held;
    this.held = [];
    for (const go of waiting) go();
    return waiting.length;
  }

  /** True when this applied write's response is to be lost (see `loseResponses`); counts it. */
  loseResponse(route: string): boolean {
    if (!this.lose || this.lose.left <= 0 || !this.lose.routes.test(route)) return false;
    this.lose.left--;
    return true;
  }

  async delay(): Promise<void> {
    const base = this.faults.latencyMs ?? 0;
    const jitter = this.faults.jitterMs ?? 0;
    const ms = base + (jitter > 0 ? Math.random() * jitter : 0);
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  }

  shouldDrop(): boolean {
    const rate = this.faults.dropRate ?? 0;
    return rate > 0 && Math.random() < rate;
  }

  /** Throws a 5xx when the route matches and the dice say so. `route` is "METHOD /path". */
  maybeError(route: string): void {
    const rate = this.faults.errorRate ?? 0;
    if (rate <= 0) return;
    if (this.errorRegex && !this.errorRegex.test(route)) return;
    if (Math.random() < rate) {
      const status = this.faults.errorStatus ?? 502;
      throw new HttpError(status, status === 502 ? "Server Error" : "Service Unavailable");
    }
  }

  /**
   * Counts one content-creating request for `who`; throws GitHub's secondary rate limit when over.
   * A GraphQL mutation counts only when the fault names its shape; the 200 shape throws
   * SecondaryAs200, which the pipeline answers as 200 with the words in errors[].message.
   */
  countWrite(who: string, graphql = false): void {
    const limit = this.faults.secondaryRateLimit;
    if (!limit) return;
    if (graphql && !limit.graphql) return;
    const now = Date.now();
    const recent = (this.writes.get(who) ?? []).filter((t) => now - t < 60_000);
    const injected = limit.rate !== undefined && Math.random() < limit.rate;
    if (injected || recent.length >= limit.writesPerMinute) {
      this.writes.set(who, recent);
      const headers = { "retry-after": String(limit.retryAfterSeconds) };
      if (graphql && limit.graphql === "errors-200") throw new SecondaryAs200(SECONDARY_WORDS, headers);
      throw new HttpError(limit.status, SECONDARY_WORDS, {}, headers);
    }
    recent.push(now);
    this.writes.set(who, recent);
  }
}
