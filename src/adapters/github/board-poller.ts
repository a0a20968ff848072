/**
 * Idle polling that costs GitHub nothing: conditional requests (If-None-Match with the last ETag)
 * on two lists. A 304 is free on GitHub's rate limit, and carries no body.
 *   - the repository's issue events: labels, assignees, close/reopen, renames (and X-Poll-Interval);
 *   - the repository's issue comments, most recently updated first: new comments and lease
 *     rewrites in place (heartbeats, Stage changes), which are not issue events.
 * "changed" means at least one ETag moved (or there was none yet): then the board refetches.
 */
import type { Octokit } from "@octokit/rest";
import { z } from "zod";
import type { PollResult } from "../../ports/board-source";
import type { RepoRef } from "../../ports/tracker";
import { toBoardError } from "./board-errors";

/** What the board reads GitHub with: the window's (or the CLI's) one client. */
export type BoardOctokit = Pick<Octokit, "graphql" | "request">;

type Headers = Record<string, string | number | undefined>;

const ENDPOINTS = [
  { key: "events", route: "GET /repos/{owner}/{repo}/issues/events", params: { per_page: 1 } },
  // A page, not one item: timestamps have one-second resolution, so an edit in the same second
  // as newer comments may not sort first. A 304 costs nothing whatever the page size.
  { key: "comments", route: "GET /repos/{owner}/{repo}/issues/comments", params: { per_page: 100, sort: "updated", direction: "desc" } },
] as const;

/** Both lists are arrays; their items are not used, only whether they changed. */
const listSchema = z.array(z.unknown());

export interface RateReading {
  used: number;
  remaining: number;
  resource: string;
}

export class BoardPoller {
  private readonly etags = new Map<string, string>();
  /** The rate-limit headers of the last answer, so a benchmark can show what idle polls spent. */
  lastRate: RateReading | null = null;

  constructor(
    private readonly octokit: BoardOctokit,
    private readonly repo: RepoRef,
  ) {}

  async poll(): Promise<PollResult> {
    let changed = false;
    let interval: number | null = null;
    let points = 0;
    for (const ep of ENDPOINTS) {
      const answer = await this.conditional(ep.key, ep.route, ep.params);
      if (answer.modified) {
        changed = true;
        points += 1;
      }
      const wish = Number(answer.headers["x-poll-interval"]);
      if (Number.isFinite(wish) && wish > 0) interval = Math.max(interval ?? 0, wish);
    }
    return { changed, pollIntervalSeconds: interval, cost: { requests: ENDPOINTS.length, points } };
  }

  /** Forgets the ETags: the next poll reports a change. */
  reset(): void {
    this.etags.clear();
  }

  private async conditional(key: string, route: string, params: Record<string, unknown>): Promise<{ modified: boolean; headers: Headers }> {
    const etag = this.etags.get(key);
    const what = `checking ${this.repo.owner}/${this.repo.repo} for changes`;
    try {
      const res = await this.octokit.request(route, {
        owner: this.repo.owner,
        repo: this.repo.repo,
        ...params,
        headers: etag ? { "if-none-match": etag } : {},
      });
      const headers = res.headers as Headers;
      this.noteRate(headers);
      const parsed = listSchema.safeParse(res.data);
      if (!parsed.success) throw toBoardError(new Error(`${route} did not answer a list`), what);
      const next = headers["etag"];
      if (typeof next === "string" && next) this.etags.set(key, next);
      else this.etags.delete(key); // no ETag, no conditional request next time: every poll refetches
      return { modified: true, headers };
    } catch (e) {
      const status = (e as { status?: unknown }).status;
      if (status === 304) {
        const headers = ((e as { response?: { headers?: Headers } }).response?.headers ?? {}) as Headers;
        this.noteRate(headers);
        return { modified: false, headers };
      }
      throw toBoardError(e, what);
    }
  }

  private noteRate(headers: Headers): void {
    const used = Number(headers["x-ratelimit-used"]);
    const remaining = Number(headers["x-ratelimit-remaining"]);
    if (Number.isFinite(used) && Number.isFinite(remaining)) this.lastRate = { used, remaining, resource: String(headers["x-ratelimit-resource"] ?? "core") };
  }
}
