/**
 * Maps what Octokit throws (RequestError, GraphqlResponseError, a network failure) to a
 * BoardSourceError whose reason the board shows and branches on. Messages never carry a token:
 * Octokit redacts the authorization header, and nothing here quotes request headers.
 */
import { BoardSourceError } from "../../core/board/source-error";
import { GitHubRateLimit } from "../../core/errors";
import { retryAtFrom } from "./rate-limits";

type Headers = Record<string, string | number | undefined>;

interface OctokitLikeError {
  status?: number;
  message?: string;
  /** plugin-throttling's "GraphQL Rate Limit Exceeded" carries GitHub's 200 answer here. */
  data?: { errors?: { type?: string }[] };
  response?: { headers?: Headers; data?: unknown };
  headers?: Headers;
  errors?: { type?: string; message?: string }[];
}

export function toBoardError(e: unknown, what: string, now: Date = new Date()): BoardSourceError {
  if (e instanceof BoardSourceError) return e;
  // The client types every rate limit GitHub sends, in any of its shapes (./rate-limits.ts).
  if (e instanceof GitHubRateLimit) {
    const kind = e.limit === "secondary" ? "secondary" : e.api === "graphql" ? "GraphQL" : "REST";
    return new BoardSourceError("rate-limited", `GitHub's ${kind} rate limit is spent (${what}); it resets at ${e.resetAt.toISOString()}.`, {
      retryAt: e.resetAt,
      cause: e,
    });
  }
  const err = (typeof e === "object" && e !== null ? e : {}) as OctokitLikeError;
  const text = (err.message ?? String(e)).split("\n")[0]?.slice(0, 300) ?? "";
  const headers = err.response?.headers ?? err.headers;
  // GitHub's spent GraphQL budget is a 200 with errors[].type RATE_LIMITED; the throttling plugin
  // rethrows it with no status, which must not read as "could not reach the API".
  if (err.status === undefined && (err.data?.errors ?? []).some((x) => x.type === "RATE_LIMITED")) {
    const retryAt = retryAtFrom(headers, now);
    return new BoardSourceError("rate-limited", `GitHub's GraphQL rate limit is spent (${what})${retryAt ? `; it resets at ${retryAt.toISOString()}` : ""}.`, {
      retryAt,
      cause: e,
    });
  }
  if (Array.isArray(err.errors)) {
    if (err.errors.some((x) => x.type === "RATE_LIMITED")) {
      return new BoardSourceError("rate-limited", `GitHub's GraphQL rate limit is spent (${what}).`, { retryAt: retryAtFrom(headers, now), cause: e });
    }
    if (err.errors.some((x) => x.type === "NOT_FOUND")) {
      return new BoardSourceError("not-found", `${what}: the repository was not found, or this token cannot see it.`, { cause: e });
    }
    return new BoardSourceError(
      "invalid-response",
      `${what}: GitHub answered with errors: ${err.errors
        .map((x) => x.message)
        .join("; ")
        .slice(0, 300)}`,
      { cause: e },
    );
  }
  const status = typeof err.status === "number" ? err.status : undefined;
  if (status === undefined || !err.response) {
    return new BoardSourceError("network", `${what}: could not reach the API (${text}).`, { cause: e });
  }
  const retryAt = retryAtFrom(headers, now);
  if (status === 429 || (status === 403 && (retryAt || /rate limit/i.test(text)))) {
    return new BoardSourceError("rate-limited", `GitHub's rate limit is spent (${what}).`, { status, retryAt, cause: e });
  }
  if (status === 401)
    return new BoardSourceError("unauthorized", `${what}: the token was refused (401). Sign in again or set a valid token.`, { status, cause: e });
  if (status === 403) return new BoardSourceError("forbidden", `${what}: this account may not read the repository (403).`, { status, cause: e });
  if (status === 404)
    return new BoardSourceError("not-found", `${what}: the repository was not found, or this token cannot see it (404).`, { status, cause: e });
  if (status >= 500) return new BoardSourceError("server", `${what}: GitHub answered ${status}; this usually passes, retry in a moment.`, { status, cause: e });
  return new BoardSourceError("invalid-response", `${what}: unexpected answer ${status} (${text}).`, { status, cause: e });
}
