/**
 * Typed errors. Callers branch on `reason`, never on message text.
 * A refusal says what happened, who holds what (with a link), and the exact next command.
 */
import { resetTime } from "./run/naming";

export type RefusalReason =
  | "claimed-elsewhere"
  | "claimed-locally"
  | "run-dir-mismatch"
  | "not-open"
  | "not-ready"
  | "branch-in-way"
  | "branches-parted"
  | "lock-held"
  | "bad-config"
  | "bad-input"
  | "inside-stage"
  | "not-a-target"
  | "dirty-checkout"
  | "untrusted"
  /** Lost the claim protocol's read-after-write race: another claim was earlier. */
  | "race-yielded"
  /** A Run is already active in this window (the extension runs one Run per window). */
  | "run-active"
  /** VS Code's Restricted Mode: the folder is not trusted, so nothing it configures may run (ADR 0230). */
  | "untrusted-workspace"
  /** The token is GitHub Actions' own GITHUB_TOKEN: the pull requests it opens would never get CI. */
  | "actions-token"
  /** The config asks for the OS sandbox (isolation "sandbox") and this Host cannot make one (ADR 0290). */
  | "no-sandbox"
  /** GitHub's rate limit for this token is spent: nothing more can be asked until `details.retryAt`. */
  | "rate-limited"
  /** A lease written by a newer Ticket Runner holds the ticket: this build cannot judge it (ADR 0421). */
  | "newer-lease";

// The extension loads its code in more than one bundle (ADR 0301), and a class bundled twice is two
// classes: isRefusal and isFailure go by a brand every copy shares (Symbol.for), not instanceof.
const REFUSAL = Symbol.for("ticket-runner.Refusal");
const FAILURE = Symbol.for("ticket-runner.Failure");

export class Refusal extends Error {
  override readonly name = "Refusal";
  readonly [REFUSAL] = true;
  constructor(
    readonly reason: RefusalReason,
    message: string,
    readonly details: { link?: string; next?: string; path?: string; retryAt?: string } = {},
  ) {
    super(message);
  }
}

export type FailureReason = "network" | "github" | "git" | "filesystem" | "agent" | "invalid-record" | "rate-limited" | "internal";

export class Failure extends Error {
  override readonly name = "Failure";
  readonly [FAILURE] = true;
  constructor(
    readonly reason: FailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * GitHub's rate limit, in any of GitHub's shapes (REST 403/429, GraphQL 200 with RATE_LIMITED, a
 * secondary limit as 200-with-errors or 403), after the client's own short wait did not cover it
 * (ADR 0240). `resetAt` is when GitHub said to come back.
 */
export class GitHubRateLimit extends Failure {
  constructor(
    readonly limit: "primary" | "secondary",
    readonly api: "graphql" | "rest",
    readonly resetAt: Date,
    options?: { cause?: unknown },
  ) {
    super(
      "rate-limited",
      `GitHub's ${limit === "secondary" ? "secondary" : api === "graphql" ? "GraphQL" : "REST"} rate limit for this token is spent; it resets ${resetTime(resetAt.toISOString()) ?? "at a time GitHub did not say"}`,
      options,
    );
  }
}

export function isRefusal(e: unknown): e is Refusal {
  return e instanceof Error && REFUSAL in e;
}

export function isFailure(e: unknown): e is Failure {
  return e instanceof Error && FAILURE in e;
}
