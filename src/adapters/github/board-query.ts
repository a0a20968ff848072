/**
 * The board's GitHub reads. A refresh is ONE GraphQL query per 100 open tickets, carrying labels,
 * assignees and the last N comments (where the lease usually is). An issue whose lease is older
 * costs one more query for that issue only (the core decides which: src/core/board/load.ts).
 * Every response is checked with zod; a malformed issue node is logged and skipped, not fatal.
 */
import { z } from "zod";
import { BoardSourceError } from "../../core/board/source-error";
import type { BoardFetch, BoardSource, BoardSourceIssue, PollResult, SourceCost } from "../../ports/board-source";
import type { Log } from "../../ports/log";
import type { Permission, RepoRef, TrackerComment } from "../../ports/tracker";
import type { BoardOctokit, BoardPoller } from "./board-poller";
import { toBoardError } from "./board-errors";
import { lacks, withOptionalFeature } from "./capabilities";
import { githubIdSchema } from "../../core/schemas/github-id";

/** `fullDatabaseId`, not the 32-bit `databaseId`: see GQL_COMMENT_FIELDS in schemas.ts (ADR 0130). */
const COMMENT_FIELDS = "fullDatabaseId url body createdAt updatedAt author { login }";
/** Blockers fetched per issue. One open blocker is enough to keep an issue off the Frontier. */
const BLOCKERS = 20;

const BLOCKED_BY_FIELD = `blockedBy(first: ${BLOCKERS}) { totalCount nodes { number state repository { nameWithOwner } } }`;

function boardPageQuery(withDependencies: boolean): string {
  return /* GraphQL */ `
  query BoardPage($owner: String!, $name: String!, $labels: [String!], $after: String, $comments: Int!) {
    viewer { login }
    rateLimit { cost remaining resetAt }
    repository(owner: $owner, name: $name) {
      issues(first: 100, after: $after, states: [OPEN], labels: $labels, orderBy: { field: CREATED_AT, direction: ASC }) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          number title url updatedAt
          labels(first: 50) { nodes { name } }
          assignees(first: 20) { nodes { login } }
          comments(last: $comments) { totalCount nodes { ${COMMENT_FIELDS} } }
          ${withDependencies ? BLOCKED_BY_FIELD : ""}
        }
      }
    }
  }
`;
}

export const BOARD_PAGE_QUERY = boardPageQuery(true);
/** For a server without issue dependencies (some GitHub Enterprise Server versions). */
const BOARD_PAGE_QUERY_NO_DEPENDENCIES = boardPageQuery(false);

const ISSUE_COMMENTS_QUERY = /* GraphQL */ `
  query BoardIssueComments($owner: String!, $name: String!, $number: Int!, $after: String) {
    rateLimit { cost }
    repository(owner: $owner, name: $name) {
      issue(number: $number) {
        comments(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${COMMENT_FIELDS} } }
      }
    }
  }
`;

const commentNode = z.object({
  fullDatabaseId: githubIdSchema,
  url: z.string().min(1),
  body: z.string(),
  createdAt: z.string().datetime({ offset: true }),
  updatedAt: z.string().datetime({ offset: true }),
  author: z.object({ login: z.string().min(1) }).nullable(),
});

const issueNode = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  url: z.string().min(1),
  updatedAt: z.string().datetime({ offset: true }),
  labels: z.object({ nodes: z.array(z.object({ name: z.string() }).nullable()) }).nullable(),
  assignees: z.object({ nodes: z.array(z.object({ login: z.string() }).nullable()) }),
  comments: z.object({ totalCount: z.number().int().min(0), nodes: z.array(z.unknown()) }),
  // Optional: a server without issue dependencies leaves it out; nothing is then blocked.
  blockedBy: z
    .object({
      totalCount: z.number().int().min(0),
      nodes: z.array(
        z
          .object({
            number: z.number().int().positive(),
            state: z.string(),
            repository: z
              .object({ nameWithOwner: z.string().min(1) })
              .nullable()
              .optional(),
          })
          .nullable(),
      ),
    })
    .nullable()
    .optional(),
});

const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });
const rateLimit = z
  .object({ cost: z.number().int().min(0) })
  .passthrough()
  .nullable()
  .optional();

const pageSchema = z.object({
  viewer: z.object({ login: z.string().min(1) }),
  rateLimit,
  repository: z.object({ issues: z.object({ totalCount: z.number().int().min(0), pageInfo, nodes: z.array(z.unknown()) }) }).nullable(),
});

const commentsSchema = z.object({
  rateLimit,
  repository: z.object({ issue: z.object({ comments: z.object({ pageInfo, nodes: z.array(z.unknown()) }) }).nullable() }).nullable(),
});

const permissionSchema = z.object({ permission: z.string(), role_name: z.string().optional() });
const PERMISSIONS = new Set<string>(["admin", "maintain", "write", "triage", "read", "none"]);

/** Hard stop against a server that keeps answering hasNextPage: 500 pages is 50,000 open tickets. */
const MAX_PAGES = 500;

export interface GitHubBoardSourceOptions {
  octokit: BoardOctokit;
  repo: RepoRef;
  poller: BoardPoller;
  log: Log;
}

export class GitHubBoardSource implements BoardSource {
  readonly repo: RepoRef;

  constructor(private readonly opts: GitHubBoardSourceOptions) {
    this.repo = opts.repo;
  }

  private get where(): string {
    return `${this.repo.owner}/${this.repo.repo}`;
  }

  async fetchOpenIssues(opts: { labels: string[]; lastComments: number }): Promise<BoardFetch> {
    const issues: BoardSourceIssue[] = [];
    const cost: SourceCost = { requests: 0, points: 0 };
    let viewer = "";
    let after: string | null = null;
    const seenCursors = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page++) {
      const raw = await this.page({ owner: this.repo.owner, name: this.repo.repo, labels: opts.labels, after, comments: opts.lastComments }, cost);
      const data = parseOrThrow(pageSchema, raw, `the board query for ${this.where}`);
      cost.points = addPoints(cost.points, data.rateLimit?.cost);
      if (!data.repository) throw new BoardSourceError("not-found", `${this.where} was not found, or this token cannot see it.`);
      viewer = data.viewer.login;
      for (const node of data.repository.issues.nodes) {
        const issue = this.issueFrom(node);
        if (issue) issues.push(issue);
      }
      const { hasNextPage, endCursor } = data.repository.issues.pageInfo;
      if (!hasNextPage || !endCursor) return { viewer, issues, cost, ...this.dependenciesFlag() };
      if (seenCursors.has(endCursor))
        throw new BoardSourceError("invalid-response", `The board query for ${this.where} returned the same page twice; stopping.`);
      seenCursors.add(endCursor);
      after = endCursor;
    }
    this.opts.log.warn(`board: stopped after ${MAX_PAGES} pages of open tickets`, { repo: this.where });
    return { viewer, issues, cost, ...this.dependenciesFlag() };
  }

  async fetchAllComments(issue: number): Promise<{ comments: TrackerComment[]; cost: SourceCost }> {
    const comments: TrackerComment[] = [];
    const cost: SourceCost = { requests: 0, points: 0 };
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const raw = await this.graphql(
        ISSUE_COMMENTS_QUERY,
        { owner: this.repo.owner, name: this.repo.repo, number: issue, after },
        `reading the comments of ${this.where}#${issue}`,
      );
      cost.requests += 1;
      const data = parseOrThrow(commentsSchema, raw, `the comments of ${this.where}#${issue}`);
      cost.points = addPoints(cost.points, data.rateLimit?.cost);
      const connection = data.repository?.issue?.comments;
      if (!connection) throw new BoardSourceError("not-found", `${this.where}#${issue} was not found.`);
      comments.push(...this.commentsFrom(connection.nodes, issue));
      if (!connection.pageInfo.hasNextPage || !connection.pageInfo.endCursor) break;
      after = connection.pageInfo.endCursor;
    }
    return { comments, cost };
  }

  async permissionOf(login: string): Promise<{ permission: Permission; cost: SourceCost }> {
    try {
      const res = await this.opts.octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
        owner: this.repo.owner,
        repo: this.repo.repo,
        username: login,
      });
      const data = parseOrThrow(permissionSchema, res.data, `the permission of ${login} on ${this.where}`);
      const exact = data.role_name && PERMISSIONS.has(data.role_name) ? data.role_name : data.permission;
      return { permission: PERMISSIONS.has(exact) ? (exact as Permission) : "none", cost: { requests: 1, points: 1 } };
    } catch (e) {
      // Not a collaborator (or no such user): no write access, which is an answer, not a failure.
      if (isStatus(e, 404)) return { permission: "none", cost: { requests: 1, points: 1 } };
      throw toBoardError(e, `checking ${login}'s permission on ${this.where}`);
    }
  }

  poll(): Promise<PollResult> {
    return this.opts.poller.poll();
  }

  private dependenciesFlag(): { dependencies?: false } {
    return lacks(this.opts.octokit, "issueDependencies") ? { dependencies: false } : {};
  }

  /** One page; on a server without issue dependencies, without `blockedBy` (learnt once per client: ./capabilities.ts). */
  private async page(variables: Record<string, unknown>, cost: SourceCost): Promise<unknown> {
    const { octokit, log } = this.opts;
    const send = (query: string) => {
      cost.requests += 1;
      return octokit.graphql<unknown>(query, variables);
    };
    try {
      return await withOptionalFeature(
        octokit,
        "issueDependencies",
        { warn: (m) => log.warn(`board: ${m}`, { repo: this.where }) },
        () => send(BOARD_PAGE_QUERY),
        () => send(BOARD_PAGE_QUERY_NO_DEPENDENCIES),
      );
    } catch (e) {
      throw toBoardError(e, `reading the open tickets of ${this.where}`);
    }
  }

  private async graphql(query: string, variables: Record<string, unknown>, what: string): Promise<unknown> {
    try {
      return await this.opts.octokit.graphql<unknown>(query, variables);
    } catch (e) {
      throw toBoardError(e, what);
    }
  }

  private issueFrom(node: unknown): BoardSourceIssue | null {
    const parsed = issueNode.safeParse(node);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.opts.log.warn("board: skipped an issue the API described in a shape we cannot read", {
        repo: this.where,
        at: issue?.path.join("."),
        why: issue?.message,
      });
      return null;
    }
    const n = parsed.data;
    return {
      number: n.number,
      title: n.title,
      url: n.url,
      updatedAt: n.updatedAt,
      labels: (n.labels?.nodes ?? []).flatMap((l) => (l ? [l.name] : [])),
      assignees: n.assignees.nodes.flatMap((a) => (a ? [a.login] : [])),
      comments: this.commentsFrom(n.comments.nodes, n.number),
      commentCount: n.comments.totalCount,
      openBlockers: this.openBlockers(n.blockedBy),
    };
  }

  private openBlockers(blockedBy: z.infer<typeof issueNode>["blockedBy"]): string[] {
    if (!blockedBy) return [];
    // Only open blockers count: closing a blocker frees the issue. Beyond the first BLOCKERS, an
    // issue with that many blockers is left to its first ones (one open one is enough to block).
    return blockedBy.nodes.flatMap((b) => {
      if (!b || b.state !== "OPEN") return [];
      const where = b.repository?.nameWithOwner;
      return [where && where.toLowerCase() !== this.where.toLowerCase() ? `${where}#${b.number}` : `#${b.number}`];
    });
  }

  private commentsFrom(nodes: unknown[], issue: number): TrackerComment[] {
    const out: TrackerComment[] = [];
    for (const node of nodes) {
      const parsed = commentNode.safeParse(node);
      if (!parsed.success) {
        this.opts.log.warn("board: skipped a comment the API described in a shape we cannot read", {
          repo: this.where,
          issue,
          why: parsed.error.issues[0]?.message,
        });
        continue;
      }
      const c = parsed.data;
      // A deleted account shows as no author; GitHub calls it "ghost", and a ghost has no write access.
      out.push({ id: c.fullDatabaseId, body: c.body, author: c.author?.login ?? "ghost", url: c.url, createdAt: c.createdAt, updatedAt: c.updatedAt });
    }
    return out;
  }
}

function addPoints(total: number | null, cost: number | undefined): number | null {
  return total === null || cost === undefined ? null : total + cost;
}

function isStatus(e: unknown, status: number): boolean {
  return typeof e === "object" && e !== null && (e as { status?: unknown }).status === status;
}

function parseOrThrow<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new BoardSourceError("invalid-response", `Could not read ${what}: ${issue?.path.join(".") || "(root)"} ${issue?.message ?? "is invalid"}.`);
}
