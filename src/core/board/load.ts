/**
 * One refresh of the board: a fetch of every open ticket (one request per 100 issues), one more
 * request for each claimed issue whose lease is not among its last comments, a permission check
 * for lease authors not seen before (cached), and the run root on this Host. Returns BoardInput;
 * build.ts turns that into the model.
 */
import type { BoardSource, BoardSourceIssue, SourceCost } from "../../ports/board-source";
import type { Clock } from "../../ports/clock";
import type { HostIdentity } from "../../ports/host";
import type { Log } from "../../ports/log";
import type { Permission, TrackerComment } from "../../ports/tracker";
import { keepTrusted, parseComments, type MarkerParser } from "./lease-readings";
import type { BoardInput, BoardIssue, BoardLabels, LocalClaim } from "./types";

export interface BoardLoaderOptions {
  source: BoardSource;
  parse: MarkerParser;
  readLocal(): Promise<LocalClaim[]>;
  host: HostIdentity;
  labels: BoardLabels;
  clock: Clock;
  log: Log;
  /** Comments fetched per issue with the page; the lease is usually among them. Default 10. */
  lastComments?: number;
  /** How long an author's permission is remembered. Default 10 minutes. */
  trustTtlMs?: number;
}

export interface LoadCost extends SourceCost {
  /** Requests for issues whose lease was older than the last comments. */
  extraComments: number;
  /** Permission look-ups for lease authors not in the cache. */
  permissionChecks: number;
}

const WRITERS = new Set<Permission>(["admin", "maintain", "write"]);

export class BoardLoader {
  private readonly trust = new Map<string, { trusted: boolean; until: number }>();

  constructor(private readonly opts: BoardLoaderOptions) {}

  get repo(): string {
    return `${this.opts.source.repo.owner}/${this.opts.source.repo.repo}`;
  }

  async load(): Promise<{ input: BoardInput; cost: LoadCost }> {
    const { source, labels, clock } = this.opts;
    const lastComments = this.opts.lastComments ?? 10;
    const [fetched, local] = await Promise.all([
      source.fetchOpenIssues({ labels: [labels.ready, labels.inProgress, labels.human], lastComments }),
      this.opts.readLocal(),
    ]);
    const cost: LoadCost = { requests: fetched.cost.requests, points: fetched.cost.points, extraComments: 0, permissionChecks: 0 };
    const add = (c: SourceCost): void => {
      cost.requests += c.requests;
      cost.points = cost.points === null || c.points === null ? null : cost.points + c.points;
    };

    const parsed = await Promise.all(
      fetched.issues.map(async (issue) => {
        const target = { repo: this.repo, issue: issue.number };
        let result = parseComments(issue.comments, target, this.opts.parse);
        let leaseUnread: string | undefined;
        if (this.needsAllComments(issue, result.readings.length > 0)) {
          try {
            const all = await source.fetchAllComments(issue.number);
            add(all.cost);
            cost.extraComments += 1;
            result = parseComments(all.comments, target, this.opts.parse);
          } catch (e) {
            leaseUnread = e instanceof Error ? e.message : String(e);
            this.opts.log.warn(`could not read all comments of #${issue.number}`, { error: leaseUnread });
          }
        }
        return { issue, result, leaseUnread };
      }),
    );

    const authors = new Set<string>();
    for (const p of parsed) for (const a of p.result.authors) authors.add(a);
    const checks = await this.resolveTrust(authors);
    for (const c of checks) add(c);
    cost.permissionChecks = checks.length;

    const trusted = (login: string): boolean => this.trust.get(login)?.trusted ?? false;
    const issues: BoardIssue[] = parsed.map(({ issue, result, leaseUnread }) => {
      const { readings, ignored } = keepTrusted(result, trusted);
      for (const i of ignored) this.opts.log.info(`#${issue.number}: ignored ${i.url}`, { reason: i.reason });
      return { number: issue.number, title: issue.title, url: issue.url, labels: issue.labels, assignees: issue.assignees, readings, ignored, ...(leaseUnread ? { leaseUnread } : {}) };
    });
    const input: BoardInput = { repo: this.repo, viewer: fetched.viewer, host: this.opts.host, labels, issues, local, now: clock.now() };
    return { input, cost };
  }

  /**
   * Only an issue someone may hold needs its lease: in progress, waiting for a person, or
   * assigned. A Frontier issue with a long thread is not worth a request.
   */
  private needsAllComments(issue: BoardSourceIssue, found: boolean): boolean {
    if (found || issue.commentCount <= issue.comments.length) return false;
    const { labels } = this.opts;
    return issue.labels.includes(labels.inProgress) || issue.labels.includes(labels.human) || issue.assignees.length > 0;
  }

  private async resolveTrust(authors: Set<string>): Promise<SourceCost[]> {
    const now = this.opts.clock.now().getTime();
    const unknown = [...authors].filter((a) => (this.trust.get(a)?.until ?? 0) <= now);
    const ttl = this.opts.trustTtlMs ?? 10 * 60_000;
    return Promise.all(
      unknown.map(async (login) => {
        const { permission, cost } = await this.opts.source.permissionOf(login);
        this.trust.set(login, { trusted: WRITERS.has(permission), until: now + ttl });
        return cost;
      }),
    );
  }
}

/** Comments of one issue, for fakes and adapters that need to sort them the way the port promises. */
export function oldestFirst(comments: TrackerComment[]): TrackerComment[] {
  return [...comments].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
}
