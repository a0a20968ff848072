/**
 * One refresh of the board: a fetch of every open ticket (one request per 100 issues), one more
 * request for each claimed issue whose lease is not among its last comments, a permission check
 * for lease authors not seen before (cached), and the run root on this Host. Returns BoardInput;
 * build.ts turns that into the model. Leases are read and trusted by the claims code.
 */
import type { BoardSource, BoardSourceIssue, SourceCost } from "../../ports/board-source";
import type { Clock } from "../../ports/clock";
import type { HostIdentity } from "../../ports/host";
import type { Log, LogFields } from "../../ports/log";
import type { Permission } from "../../ports/tracker";
import { parseComments, readLeases } from "../claims/claim-view";
import { TrustCache } from "../claims/trust";
import type { BoardInput, BoardIssue, BoardLabels, LocalClaim } from "./types";

export interface BoardLoaderOptions {
  source: BoardSource;
  readLocal(): Promise<LocalClaim[]>;
  host: HostIdentity;
  labels: BoardLabels;
  clock: Clock;
  log: Log;
  /** Comments fetched per issue with the page; the lease is usually among them. Default 10. */
  lastComments?: number;
  /** How long authors' permissions are remembered. Default 10 minutes. */
  trustTtlMs?: number;
}

export interface LoadCost extends SourceCost {
  /** Requests for issues whose lease was older than the last comments. */
  extraComments: number;
  /** Permission look-ups for lease authors not in the cache. */
  permissionChecks: number;
}

export class BoardLoader {
  private trust: { cache: TrustCache; until: number } | null = null;
  private cost: LoadCost = emptyCost();
  /** The same ignored comment is logged once, not on every refresh. */
  private readonly quietLog: Log;

  constructor(private readonly opts: BoardLoaderOptions) {
    const said = new Set<string>();
    const once =
      (level: "info" | "warn") =>
      (message: string, fields?: LogFields): void => {
        const key = `${message}|${String(fields?.comment)}|${String(fields?.reason)}`;
        if (said.has(key)) return;
        said.add(key);
        opts.log[level](message, fields);
      };
    this.quietLog = { debug: opts.log.debug.bind(opts.log), info: once("info"), warn: once("warn"), error: opts.log.error.bind(opts.log) };
  }

  get repo(): string {
    return `${this.opts.source.repo.owner}/${this.opts.source.repo.repo}`;
  }

  async load(): Promise<{ input: BoardInput; cost: LoadCost }> {
    const { source, labels, clock } = this.opts;
    this.cost = emptyCost();
    const [fetched, local] = await Promise.all([
      source.fetchOpenIssues({ labels: [labels.ready, labels.inProgress, labels.human], lastComments: this.opts.lastComments ?? 10 }),
      this.opts.readLocal(),
    ]);
    this.add(fetched.cost);
    const trust = this.trustCache();
    const issues = await Promise.all(fetched.issues.map((issue) => this.readIssue(issue, trust)));
    const input: BoardInput = {
      repo: this.repo,
      viewer: fetched.viewer,
      host: this.opts.host,
      labels,
      issues,
      local,
      now: clock.now(),
      ...(fetched.dependencies === false ? { noDependencies: true as const } : {}),
    };
    return { input, cost: this.cost };
  }

  private async readIssue(issue: BoardSourceIssue, trust: TrustCache): Promise<BoardIssue> {
    let comments = issue.comments;
    let leaseUnread: string | undefined;
    if (this.needsAllComments(issue)) {
      try {
        const all = await this.opts.source.fetchAllComments(issue.number);
        this.add(all.cost);
        this.cost.extraComments += 1;
        comments = all.comments;
      } catch (e) {
        leaseUnread = e instanceof Error ? e.message : String(e);
        this.opts.log.warn(`could not read all comments of #${issue.number}`, { error: leaseUnread });
      }
    }
    const { records, ignored } = await readLeases(comments, { repo: this.repo, issue: issue.number, trust, log: this.quietLog });
    return {
      number: issue.number,
      title: issue.title,
      url: issue.url,
      labels: issue.labels,
      assignees: issue.assignees,
      readings: records,
      ignored: ignored.map((g) => ({ url: g.url, reason: g.reason })),
      ...(leaseUnread ? { leaseUnread } : {}),
      ...(issue.openBlockers.length ? { openBlockers: issue.openBlockers } : {}),
    };
  }

  /**
   * Only an issue someone may hold needs its lease: in progress, waiting for a person, or
   * assigned. A Frontier issue with a long thread is not worth a request.
   */
  private needsAllComments(issue: BoardSourceIssue): boolean {
    if (issue.commentCount <= issue.comments.length) return false;
    const { labels } = this.opts;
    const claimish = issue.labels.includes(labels.inProgress) || issue.labels.includes(labels.human) || issue.assignees.length > 0;
    if (!claimish) return false;
    return parseComments(issue.comments, this.repo, issue.number).candidates.length === 0;
  }

  /** The claims code's trust cache, renewed every `trustTtlMs` so a changed permission is seen. */
  private trustCache(): TrustCache {
    const now = this.opts.clock.now().getTime();
    if (this.trust && this.trust.until > now) return this.trust.cache;
    const cache = new TrustCache({ permissionOf: (login) => this.permissionOf(login) }, this.opts.log);
    this.trust = { cache, until: now + (this.opts.trustTtlMs ?? 10 * 60_000) };
    return cache;
  }

  private async permissionOf(login: string): Promise<Permission> {
    const { permission, cost } = await this.opts.source.permissionOf(login);
    this.add(cost);
    this.cost.permissionChecks += 1;
    return permission;
  }

  private add(c: SourceCost): void {
    this.cost.requests += c.requests;
    this.cost.points = this.cost.points === null || c.points === null ? null : this.cost.points + c.points;
  }
}

function emptyCost(): LoadCost {
  return { requests: 0, points: 0, extraComments: 0, permissionChecks: 0 };
}
