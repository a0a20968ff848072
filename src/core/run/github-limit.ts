/**
 * GitHub's rate limit met by the Run (ADR 0240). The client has already waited out what fits its
 * bound; what reaches the Run is a limit that lasts. The Run then takes nothing more, and the
 * summary names the reset: a ticket in flight is released (CI waits it out when the reset comes
 * before its timeout), and a take that met it is skipped, never counted as a contended ticket.
 */
import { GitHubRateLimit, isRefusal } from "../errors";
import type { RunEnv, Step } from "./context";
import { fail } from "./context";

/** The Run takes nothing more; the summary names the latest reset heard of. */
export function noteLimit(env: RunEnv, resetAt: Date): void {
  env.flags.rateLimited = true;
  const known = env.flags.limitResetsAt ? Date.parse(env.flags.limitResetsAt) : 0;
  if (resetAt.getTime() > known) env.flags.limitResetsAt = resetAt.toISOString();
}

/** When `error` is GitHub's rate limit (typed, or a claim refused for one), when it resets. */
export function limitResetOf(error: unknown): Date | null {
  if (error instanceof GitHubRateLimit) return error.resetAt;
  if (isRefusal(error) && error.reason === "rate-limited" && error.details.retryAt) return new Date(error.details.retryAt);
  return null;
}

/** A Step that releases the ticket for GitHub's limit, or null when `error` is something else. */
export function limitStep(env: RunEnv, stage: string, error: unknown): Step | null {
  if (!(error instanceof GitHubRateLimit)) return null;
  noteLimit(env, error.resetAt);
  const step = fail("rate-limited", stage, error.message);
  if (!step.ok) step.failure.by = "github";
  return step;
}
