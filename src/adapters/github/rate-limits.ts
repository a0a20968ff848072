/**
 * GitHub's rate limits in every shape GitHub answers them (ADR 0240), read once, here:
 * - REST primary: 403 (or 429) with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`
 *   (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-primary-rate-limit);
 * - GraphQL primary: HTTP 200, `errors[].type = "RATE_LIMITED"`, `x-ratelimit-remaining: 0`
 *   (https://docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#exceeding-the-rate-limit);
 * - secondary: "a 200 or 403 response and an error message that indicates that you hit a secondary
 *   rate limit", with `retry-after` when GitHub names a wait, else "at least one minute"
 *   (same page, #exceeding-the-secondary-rate-limit), or 429 on REST.
 * plugin-throttling waits out what fits in the client's bound (client.ts); what is left becomes one
 * typed error, `GitHubRateLimit`, carrying when GitHub said to come back.
 */
import type { Octokit } from "@octokit/core";
import { GitHubRateLimit } from "../../core/errors";

type Headers = Record<string, string | number | undefined>;

interface GraphqlError {
  type?: string;
  message?: string;
}

interface LimitLike {
  status?: number;
  message?: string;
  data?: { errors?: GraphqlError[] };
  response?: { headers?: Headers; data?: unknown };
  headers?: Headers;
}

/** GitHub's words for a secondary limit, as plugin-throttling also reads them. */
const SECONDARY = /\bsecondary rate limit/i;

/** "Otherwise, wait for at least one minute before retrying" (GitHub's rate-limit docs). */
const SECONDARY_FALLBACK_MS = 60_000;

function header(headers: Headers | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return v === undefined ? undefined : String(v);
}

/** When the server says to come back: Retry-After seconds, or the rate-limit reset (epoch seconds). */
export function retryAtFrom(headers: Headers | undefined, now: Date): Date | undefined {
  const after = Number(header(headers, "retry-after"));
  if (Number.isFinite(after) && after > 0) return new Date(now.getTime() + after * 1000);
  const reset = Number(header(headers, "x-ratelimit-reset"));
  if (header(headers, "x-ratelimit-remaining") === "0" && Number.isFinite(reset) && reset > 0) return new Date(reset * 1000);
  return undefined;
}

function graphqlErrors(data: unknown): GraphqlError[] {
  const errors = typeof data === "object" && data !== null ? (data as { errors?: unknown }).errors : undefined;
  return Array.isArray(errors) ? errors.filter((e): e is GraphqlError => typeof e === "object" && e !== null) : [];
}

function isGraphql(url: string | undefined): boolean {
  return /\/graphql(?:\?|$)/.test(url ?? "");
}

/**
 * A plugin listed before plugin-throttling, so its hook runs inside it: a GraphQL 200 whose errors
 * say "secondary rate limit" (GitHub's 200 shape of it, with no RATE_LIMITED type) is thrown as the
 * error plugin-throttling waits out like the 403 shape. Without it the answer reached the caller as
 * a plain GraphqlResponseError, never waited for and never named as a limit.
 */
export function graphqlSecondaryLimits(octokit: Octokit): Record<string, never> {
  octokit.hook.wrap("request", async (request, options) => {
    const res = await request(options);
    if (!isGraphql(options.url)) return res;
    const errors = graphqlErrors(res.data);
    const secondary = errors.find((e) => e.type !== "RATE_LIMITED" && SECONDARY.test(e.message ?? ""));
    if (!secondary) return res;
    throw Object.assign(new Error(secondary.message ?? "You have exceeded a secondary rate limit."), { response: res, data: res.data });
  });
  return {};
}

/** The typed limit this error is, or null when it is no rate limit. `url` is the request's. */
export function rateLimitFrom(error: unknown, url: string | undefined, now: Date): GitHubRateLimit | null {
  if (error instanceof GitHubRateLimit) return error;
  if (typeof error !== "object" || error === null) return null;
  const err = error as LimitLike;
  const headers = err.response?.headers ?? err.headers;
  const errors = graphqlErrors(err.data ?? err.response?.data);
  const words = [err.message ?? "", ...errors.map((e) => e.message ?? "")].join("\n");
  const typed = errors.some((e) => e.type === "RATE_LIMITED");
  const spent = header(headers, "x-ratelimit-remaining") === "0";
  const secondary = SECONDARY.test(words);
  const status = err.status;
  const limited = secondary || typed || status === 429 || (status === 403 && spent);
  if (!limited) return null;
  const limit = secondary || (!spent && !typed) ? "secondary" : "primary";
  const resetAt = retryAtFrom(headers, now) ?? new Date(now.getTime() + SECONDARY_FALLBACK_MS);
  return new GitHubRateLimit(limit, isGraphql(url) ? "graphql" : "rest", resetAt, { cause: error });
}

/**
 * Registered after every plugin, so it sees the error the caller would: whatever rate limit is
 * left once plugin-throttling has waited what it may becomes a GitHubRateLimit.
 */
export function typeRateLimits(octokit: Octokit): void {
  octokit.hook.wrap("request", async (request, options) => {
    try {
      return await request(options);
    } catch (error) {
      throw rateLimitFrom(error, options.url, new Date()) ?? error;
    }
  });
}
