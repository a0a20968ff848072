/**
 * The BoardSource port: how the board reads a Target's open tickets. The GitHub adapter
 * (src/adapters/github/board-query.ts + board-poller.ts) answers with one GraphQL query per
 * 100 open issues and polls with conditional requests; unit tests use an in-memory fake.
 * Everything returned has been checked by zod at the adapter boundary.
 */
import type { Permission, RepoRef, TrackerComment } from "./tracker";

export interface BoardSourceIssue {
  number: number;
  title: string;
  url: string;
  updatedAt: string;
  labels: string[];
  assignees: string[];
  /** The last comments on the issue, oldest first (at most `lastComments`). */
  comments: TrackerComment[];
  /** How many comments the issue has in all; more than `comments.length` means some were not fetched. */
  commentCount: number;
  /**
   * Open issues that block this one (GitHub issue dependencies), as `#n` in this repository or
   * `owner/name#n` in another. Fetched in the same page query, so it costs no extra request.
   */
  openBlockers: string[];
}

/** What one refresh or poll cost: requests sent, and rate-limit points when the server said. */
export interface SourceCost {
  requests: number;
  /** Points charged (GraphQL `rateLimit.cost`, or the drop in `x-ratelimit-remaining`); null when unknown. */
  points: number | null;
}

export interface BoardFetch {
  viewer: string;
  issues: BoardSourceIssue[];
  cost: SourceCost;
  /** false: the server has no issue dependencies, so nothing is known to be blocked (no Blocked section). */
  dependencies?: false;
}

export interface PollResult {
  /** True when something may have changed since the last poll (or there was no earlier poll). */
  changed: boolean;
  /** The server's wish (`X-Poll-Interval`), in seconds; null when it expressed none. */
  pollIntervalSeconds: number | null;
  cost: SourceCost;
}

export interface BoardSource {
  readonly repo: RepoRef;
  /** Every open issue carrying one of `labels`, with labels, assignees and the last `lastComments` comments. */
  fetchOpenIssues(opts: { labels: string[]; lastComments: number }): Promise<BoardFetch>;
  /** Every comment on one issue, oldest first: the extra request for an issue whose lease was not among the last ones. */
  fetchAllComments(issue: number): Promise<{ comments: TrackerComment[]; cost: SourceCost }>;
  /** The author's permission on the Target: a lease from someone without write access is ignored. */
  permissionOf(login: string): Promise<{ permission: Permission; cost: SourceCost }>;
  /** A conditional request: cheap (free on GitHub when nothing changed). */
  poll(): Promise<PollResult>;
}
