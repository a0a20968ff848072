/** An in-memory BoardSource for core unit tests: counts what each call would cost. */
import type { BoardFetch, BoardSource, BoardSourceIssue, PollResult } from "../../src/ports/board-source";
import type { Permission, RepoRef, TrackerComment } from "../../src/ports/tracker";

export interface FakeIssue {
  number: number;
  title?: string;
  labels?: string[];
  assignees?: string[];
  comments?: TrackerComment[];
  /** Open blockers, as the adapter reports them (`#n`). */
  openBlockers?: string[];
}

export class FakeBoardSource implements BoardSource {
  readonly repo: RepoRef = { owner: "acme", repo: "shop" };
  issues: FakeIssue[] = [];
  permissions = new Map<string, Permission>();
  viewer = "ana";
  version = 0;
  pollInterval: number | null = null;
  failNext: Error | null = null;
  failComments = new Set<number>();
  calls = { fetch: 0, allComments: [] as number[], permission: [] as string[], poll: 0 };
  private seenVersion: number | null = null;

  async fetchOpenIssues(opts: { labels: string[]; lastComments: number }): Promise<BoardFetch> {
    this.calls.fetch += 1;
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = null;
      throw e;
    }
    const wanted = this.issues.filter((i) => (i.labels ?? []).some((l) => opts.labels.includes(l)));
    const issues: BoardSourceIssue[] = wanted.map((i) => {
      const all = i.comments ?? [];
      return {
        number: i.number,
        title: i.title ?? `Ticket ${i.number}`,
        url: `https://github.com/acme/shop/issues/${i.number}`,
        updatedAt: "2026-03-01T11:00:00.000Z",
        labels: i.labels ?? [],
        assignees: i.assignees ?? [],
        comments: all.slice(-opts.lastComments),
        commentCount: all.length,
        openBlockers: i.openBlockers ?? [],
      };
    });
    return {
      viewer: this.viewer,
      issues,
      cost: { requests: Math.max(1, Math.ceil(wanted.length / 100)), points: Math.max(1, Math.ceil(wanted.length / 100)) },
    };
  }

  async fetchAllComments(issue: number): Promise<{ comments: TrackerComment[]; cost: { requests: number; points: number } }> {
    this.calls.allComments.push(issue);
    if (this.failComments.has(issue)) throw new Error(`comments of #${issue}: 502 Bad Gateway`);
    return { comments: this.issues.find((i) => i.number === issue)?.comments ?? [], cost: { requests: 1, points: 1 } };
  }

  async permissionOf(login: string): Promise<{ permission: Permission; cost: { requests: number; points: number } }> {
    this.calls.permission.push(login);
    return { permission: this.permissions.get(login) ?? "none", cost: { requests: 1, points: 1 } };
  }

  async poll(): Promise<PollResult> {
    this.calls.poll += 1;
    const changed = this.seenVersion !== this.version;
    this.seenVersion = this.version;
    return { changed, pollIntervalSeconds: this.pollInterval, cost: { requests: 1, points: changed ? 1 : 0 } };
  }
}

let commentId = 4_294_967_296 + 5000;
export function comment(body: string, author = "ana", at = "2026-03-01T11:00:00.000Z"): TrackerComment {
  commentId += 1;
  return { id: String(commentId), body, author, url: `https://github.com/acme/shop/issues/1#issuecomment-${commentId}`, createdAt: at, updatedAt: at };
}
