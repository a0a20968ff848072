/**
 * The one Octokit every front door builds (docs/adr/0044-octokit-client.md):
 * - plugin-retry retries 5xx and dropped connections, but ONLY for requests that are safe to send
 *   twice: GET/HEAD/PUT/PATCH/DELETE and GraphQL queries. A POST (a comment, a PR, a GraphQL
 *   mutation) is never retried blindly: a lost response may hide a write that landed, and a claim
 *   comment posted twice is two leases. The claim protocol reads back instead.
 * - plugin-throttling honours `retry-after` on primary and secondary rate limits (a rate-limited
 *   request was not executed, so even a POST may be sent again), within a bounded wait; a limit
 *   longer than that reaches the caller as a typed `GitHubRateLimit` with its reset time, in every
 *   shape GitHub answers one (./rate-limits.ts, ADR 0240).
 * - Writes are paced (GitHub asks for about a second between mutations) except against a loopback
 *   sandbox, where pacing would only slow tests down.
 */
import { randomUUID } from "node:crypto";
import { retry } from "@octokit/plugin-retry";
import { throttling, type ThrottlingOptions } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { redactSecrets, secretEnv } from "../../core/redact";
import { scrubJsonValue } from "../secret-scan";
import { PRODUCT_VERSION } from "../../core/version";
import type { Log } from "../../ports/log";
import { nodeHttpFetch } from "./node-fetch";
import { graphqlSecondaryLimits, typeRateLimits } from "./rate-limits";

// Order matters: a plugin's request hook wraps the earlier ones', so graphqlSecondaryLimits sees the
// raw answer before plugin-throttling decides whether to wait (./rate-limits.ts).
const PluggedOctokit = Octokit.plugin(graphqlSecondaryLimits, retry, throttling);
export type GitHubClient = InstanceType<typeof PluggedOctokit>;

export interface CreateOctokitOptions {
  apiUrl: string;
  token: string;
  userAgent?: string;
  log: Log;
  /** Base of the retry back-off in ms (retry n waits n² × this). Default 1000; tests lower it. */
  retryBaseMs?: number;
  /** Retries for safe requests. Default 3. */
  retries?: number;
  /** Minimum spacing between writes, ms. Default 1000 for GitHub, 0 for a loopback sandbox. */
  writePacingMs?: number;
  /** Longest rate-limit wait honoured before giving up, seconds. Default 120. */
  maxRateLimitWaitSeconds?: number;
}

export function isLoopback(apiUrl: string): boolean {
  try {
    const host = new URL(apiUrl).hostname;
    return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
  } catch {
    return false;
  }
}

interface RequestOptionsLike {
  method?: string;
  url?: string;
  query?: unknown;
  request?: { retries?: number };
  [key: string]: unknown;
}

/** True for requests that may be sent twice without doing anything twice. */
export function isRetrySafe(options: RequestOptionsLike): boolean {
  const method = (options.method ?? "GET").toUpperCase();
  if (method !== "POST") return true;
  const url = options.url ?? "";
  if (!/\/graphql$/.test(url.split("?")[0] ?? "")) return false;
  const query = typeof options.query === "string" ? options.query.trimStart() : "";
  return query.startsWith("query") || query.startsWith("{");
}

/** A write limiter that lets everything through at once (Bottleneck.Group's duck shape). */
function unpaced(): NonNullable<ThrottlingOptions["write"]> {
  const limiter = {
    schedule: (...args: unknown[]) =>
      typeof args[0] === "function" ? (args[0] as (...a: unknown[]) => unknown)(...args.slice(1)) : (args[1] as (...a: unknown[]) => unknown)(...args.slice(2)),
  };
  return { key: () => limiter } as unknown as NonNullable<ThrottlingOptions["write"]>;
}

/**
 * Octokit's own line per request: "GET /repos/o/r - 200 with id … in 4ms" on success, the same with
 * the status (404, 422, or 500 for a dropped connection) on a failure. A failure also comes back to
 * the caller as an error, which either expects it (a 422 for a label that exists, a 404 for a missing
 * issue) or turns it into a typed error with a clear message: that message is what a person should
 * see, so these lines are debug, for every front door alike.
 */
/** Request options that are the request's own machinery, never text a person or an agent wrote. */
const NOT_TEXT = new Set(["method", "url", "baseUrl", "headers", "request", "mediaType", "query", "owner", "repo"]);

const REQUEST_LINE = /^(GET|POST|PUT|PATCH|DELETE|HEAD) \S+ - \S+ with id /;

export function createOctokit(o: CreateOctokitOptions): GitHubClient {
  const env = process.env;
  const say = (level: keyof Log) => (message: string) => o.log[level](redactSecrets(String(message), secretEnv(env, o.token)));
  const octokitSays = (level: keyof Log) => (message: string) => say(REQUEST_LINE.test(String(message)) ? "debug" : level)(message);
  const maxWait = o.maxRateLimitWaitSeconds ?? 120;
  const pacing = o.writePacingMs ?? (isLoopback(o.apiUrl) ? 0 : 1000);
  const onLimit = (kind: string) => (retryAfter: number, options: { method?: string; url?: string }, _octokit: unknown, retryCount: number) => {
    const where = `${options.method ?? "?"} ${options.url ?? "?"}`;
    if (retryCount < 2 && retryAfter <= maxWait) {
      o.log.warn(`GitHub ${kind} rate limit; retrying after ${retryAfter}s`, { request: where, retryCount });
      return true;
    }
    o.log.error(`GitHub ${kind} rate limit; giving up`, { request: where, retryAfter, retryCount });
    return false;
  };
  const throttle: ThrottlingOptions = {
    id: `ticket-runner-${randomUUID()}`,
    onRateLimit: onLimit("primary"),
    onSecondaryRateLimit: onLimit("secondary"),
    retryAfterBaseValue: 1000,
    ...(pacing === 0 ? { write: unpaced(), notifications: unpaced() } : {}),
  };
  const octokit = new PluggedOctokit({
    auth: o.token,
    baseUrl: o.apiUrl.replace(/\/+$/, ""),
    userAgent: o.userAgent ?? `ticket-runner/${PRODUCT_VERSION}`,
    log: { debug: () => undefined, info: octokitSays("info"), warn: say("warn"), error: octokitSays("error") },
    retry: { retries: o.retries ?? 3, retryAfterBaseValue: o.retryBaseMs ?? 1000, doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451] },
    throttle,
    // node:http with a kept-alive socket, a quarter of undici's CPU a request (./node-fetch.ts, ADR 0489).
    request: { fetch: nodeHttpFetch() },
  });
  typeRateLimits(octokit);
  // Runs before every send (including plugin-retry's re-sends): an unsafe request gets no retries.
  octokit.hook.before("request", (options) => {
    const opts = options as unknown as RequestOptionsLike;
    if (!isRetrySafe(opts)) opts.request = { ...(opts.request ?? {}), retries: 0 };
  });
  // Every write's text (comment and pull request bodies and titles, GraphQL variables) is scanned for
  // secrets before it leaves the machine (ADR 0160); reads carry nothing of ours.
  octokit.hook.before("request", async (options) => {
    const opts = options as unknown as RequestOptionsLike;
    if ((opts.method ?? "GET").toUpperCase() === "GET") return;
    for (const key of Object.keys(opts)) {
      if (NOT_TEXT.has(key)) continue;
      opts[key] = (await scrubJsonValue(opts[key], secretEnv(env, o.token))).value;
    }
  });
  return octokit;
}
