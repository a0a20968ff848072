/**
 * GraphQL objects for sandbox records. Fields that take arguments or cost work are methods,
 * which graphql-js's default resolver calls with (args, context): only what a query asks for
 * is computed.
 */
import { GraphQLError } from "graphql";
import type { App } from "../app";
import { association, canRead, hasRole, roleOf } from "../auth";
import { nodeId } from "../ids";
import type { CommentRec, EventRec, IssueRec, LabelRec, RepoRec, SandboxState, UserRec } from "../model";
import { findIssueById, issueHtml, repoHtml, userId } from "../serialize";
import { connection } from "./connection";
import type { ConnectionArgs } from "./connection";

export interface GqlCtx {
  app: App;
  state: SandboxState;
  viewer: UserRec;
  users?: Map<string, Record<string, unknown>>;
}

export function gqlError(type: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { type } });
}

export function userNode(ctx: GqlCtx, login: string): Record<string, unknown> {
  // One object per login per request: a board query names the same few authors thousands of times.
  const cache = (ctx.users ??= new Map());
  const hit = cache.get(login);
  if (hit) return hit;
  const id = userId(ctx.state, login);
  const node = {
    __typename: login.endsWith("[bot]") ? "Bot" : "User",
    id: nodeId("U", id),
    databaseId: id,
    login,
    name: login,
    avatarUrl: `${ctx.app.urls.api}/_sandbox/avatars/${encodeURIComponent(login)}`,
    url: `${ctx.app.urls.api}/${login}`,
  };
  cache.set(login, node);
  return node;
}

export function labelNode(ctx: GqlCtx, repo: RepoRec, l: LabelRec): Record<string, unknown> {
  return {
    __typename: "Label",
    id: nodeId("LA", l.id),
    name: l.name,
    color: l.color,
    description: l.description,
    isDefault: l.default,
    url: `${repoHtml(ctx.app.urls, repo)}/labels/${encodeURIComponent(l.name)}`,
  };
}

/**
 * A comment as a class, not an object of closures: a board query makes thousands of these, and
 * prototype getters cost nothing until a query asks for the field.
 */
class CommentNode {
  readonly __typename = "IssueComment";
  constructor(
    private readonly ctx: GqlCtx,
    private readonly repo: RepoRec,
    private readonly parent: IssueRec,
    private readonly c: CommentRec,
  ) {}
  get id(): string {
    return nodeId("IC", this.c.id);
  }
  /** Past 2^31 graphql-js's `Int` refuses it: a field error and null, as on github.com (ADR 0130). */
  get databaseId(): number {
    return this.c.id;
  }
  get fullDatabaseId(): string {
    return String(this.c.id);
  }
  get body(): string {
    return this.c.body;
  }
  get createdAt(): string {
    return this.c.createdAt;
  }
  get updatedAt(): string {
    return this.c.updatedAt;
  }
  get lastEditedAt(): string | null {
    return this.c.updatedAt === this.c.createdAt ? null : this.c.updatedAt;
  }
  get author(): Record<string, unknown> {
    return userNode(this.ctx, this.c.user);
  }
  get authorAssociation(): string {
    return association(this.repo, this.c.user);
  }
  get url(): string {
    return `${issueHtml(this.ctx.app.urls, this.repo, this.parent)}#issuecomment-${this.c.id}`;
  }
  get issue(): Record<string, unknown> {
    return issueNode(this.ctx, this.repo, this.parent);
  }
  get viewerCanUpdate(): boolean {
    return this.c.user === this.ctx.viewer.login || hasRole(this.repo, this.ctx.viewer.login, "write");
  }
}

export function commentNode(ctx: GqlCtx, repo: RepoRec, issue: IssueRec, c: CommentRec): object {
  return new CommentNode(ctx, repo, issue, c);
}

const timelineType: Record<string, string> = {
  labeled: "LabeledEvent",
  unlabeled: "UnlabeledEvent",
  assigned: "AssignedEvent",
  unassigned: "UnassignedEvent",
  closed: "ClosedEvent",
  reopened: "ReopenedEvent",
  renamed: "RenamedTitleEvent",
};
const itemTypeName: Record<string, string> = {
  LABELED_EVENT: "LabeledEvent",
  UNLABELED_EVENT: "UnlabeledEvent",
  ASSIGNED_EVENT: "AssignedEvent",
  UNASSIGNED_EVENT: "UnassignedEvent",
  CLOSED_EVENT: "ClosedEvent",
  REOPENED_EVENT: "ReopenedEvent",
  RENAMED_TITLE_EVENT: "RenamedTitleEvent",
  ISSUE_COMMENT: "IssueComment",
};

function eventNode(ctx: GqlCtx, repo: RepoRec, e: EventRec): Record<string, unknown> {
  const label = e.label ? repo.labels.find((l) => l.name === e.label?.name) : undefined;
  return {
    __typename: timelineType[e.event],
    id: nodeId("LE", e.id),
    actor: () => userNode(ctx, e.actor),
    createdAt: e.createdAt,
    label: label
      ? labelNode(ctx, repo, label)
      : {
          __typename: "Label",
          id: nodeId("LA", 0),
          name: e.label?.name ?? "",
          color: e.label?.color ?? "ededed",
          description: null,
          isDefault: false,
          url: "",
        },
    assignee: e.assignee ? () => userNode(ctx, e.assignee as string) : null,
    previousTitle: e.rename?.from ?? "",
    currentTitle: e.rename?.to ?? "",
  };
}

export function issueNode(ctx: GqlCtx, repo: RepoRec, issue: IssueRec): Record<string, unknown> {
  const pr = issue.pr;
  const base: Record<string, unknown> = {
    __typename: pr ? "PullRequest" : "Issue",
    id: nodeId(pr ? "PR" : "I", issue.id),
    databaseId: issue.id,
    fullDatabaseId: String(issue.id),
    number: issue.number,
    title: issue.title,
    body: issue.body ?? "",
    url: issueHtml(ctx.app.urls, repo, issue),
    permalink: issueHtml(ctx.app.urls, repo, issue),
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    closedAt: issue.closedAt,
    closed: issue.state === "closed",
    author: () => userNode(ctx, issue.user),
    authorAssociation: association(repo, issue.user),
    repository: () => repoNode(ctx, repo),
    viewerCanUpdate: issue.user === ctx.viewer.login || hasRole(repo, ctx.viewer.login, "write"),
    labels: (args: ConnectionArgs) => {
      const labels = issue.labels.map((id) => repo.labels.find((l) => l.id === id)).filter((l): l is LabelRec => !!l);
      return connection("labels", labels, args, (l) => labelNode(ctx, repo, l));
    },
    assignees: (args: ConnectionArgs) => connection("assignees", issue.assignees, args, (a) => userNode(ctx, a)),
    comments: (args: ConnectionArgs) => connection("comments", issue.comments, args, (c) => commentNode(ctx, repo, issue, c)),
    timelineItems: (args: ConnectionArgs & { itemTypes?: string[] | null; since?: string | null }) => {
      const wanted = args.itemTypes?.length ? new Set(args.itemTypes.map((t) => itemTypeName[t])) : null;
      const since = args.since ? Date.parse(args.since) : null;
      const items: { id: number; at: string; make: () => object }[] = [
        ...issue.events
          .filter((e) => timelineType[e.event])
          .map((e) => ({ id: e.id, at: e.createdAt, type: timelineType[e.event], make: () => eventNode(ctx, repo, e) })),
        ...issue.comments.map((c) => ({ id: c.id, at: c.createdAt, type: "IssueComment", make: () => commentNode(ctx, repo, issue, c) })),
      ].filter((i) => (!wanted || wanted.has(i.type)) && (since === null || Date.parse(i.at) >= since));
      items.sort((a, b) => a.id - b.id);
      return connection("timelineItems", items, args, (i) => i.make());
    },
    // Newest first, as GitHub lists them.
    userContentEdits: (args: ConnectionArgs) =>
      connection("userContentEdits", [...(issue.edits ?? [])].reverse(), args, (e) => ({
        __typename: "UserContentEdit",
        id: nodeId("UCE", e.id),
        createdAt: e.editedAt,
        updatedAt: e.editedAt,
        editedAt: e.editedAt,
        editor: () => userNode(ctx, e.editor),
        diff: e.diff,
        deletedAt: null,
        deletedBy: null,
      })),
    blockedBy: (args: ConnectionArgs) => {
      const blockers = issue.blockedBy.map((id) => findIssueById(ctx.state, id)).filter((f): f is { repo: RepoRec; issue: IssueRec } => !!f);
      return connection("blockedBy", blockers, args, (f) => issueNode(ctx, f.repo, f.issue));
    },
  };
  if (!pr) {
    base.state = issue.state === "open" ? "OPEN" : "CLOSED";
    base.stateReason = issue.stateReason ? issue.stateReason.toUpperCase() : null;
    return base;
  }
  base.state = pr.merged ? "MERGED" : issue.state === "open" ? "OPEN" : "CLOSED";
  base.isDraft = pr.draft;
  base.merged = pr.merged;
  base.mergedAt = pr.mergedAt;
  base.mergeCommit = pr.mergeCommitSha ? { oid: pr.mergeCommitSha } : null;
  base.headRefName = pr.head;
  base.headRefOid = pr.headSha;
  base.baseRefName = pr.base;
  base.mergeable = pr.mergeable && pr.mergeable.headSha === pr.headSha ? (pr.mergeable.value ? "MERGEABLE" : "CONFLICTING") : "UNKNOWN";
  return base;
}

function issueFilter(
  args: {
    states?: string[] | null;
    labels?: string[] | null;
    filterBy?: { assignee?: string | null; createdBy?: string | null; labels?: string[] | null; since?: string | null; states?: string[] | null } | null;
  },
  repo: RepoRec,
) {
  const states = args.states ?? args.filterBy?.states ?? null;
  const labels = [...(args.labels ?? []), ...(args.filterBy?.labels ?? [])].map((l) => l.toLowerCase());
  const assignee = args.filterBy?.assignee ?? null;
  const createdBy = args.filterBy?.createdBy ?? null;
  const since = args.filterBy?.since ? Date.parse(args.filterBy.since) : null;
  const names = new Map(repo.labels.map((l) => [l.id, l.name.toLowerCase()]));
  return (i: IssueRec): boolean => {
    if (states && !states.includes(i.state === "open" ? "OPEN" : "CLOSED")) return false;
    // GitHub's `labels` argument matches issues carrying ANY of the names.
    if (labels.length && !i.labels.some((id) => labels.includes(names.get(id) ?? ""))) return false;
    if (assignee && assignee !== "*" && !i.assignees.some((a) => a.toLowerCase() === assignee.toLowerCase())) return false;
    if (assignee === "*" && !i.assignees.length) return false;
    if (createdBy && i.user.toLowerCase() !== createdBy.toLowerCase()) return false;
    if (since !== null && Date.parse(i.updatedAt) < since) return false;
    return true;
  };
}

export function repoNode(ctx: GqlCtx, repo: RepoRec): Record<string, unknown> {
  const byNumber = (number: number, kind: "Issue" | "PullRequest" | null) => {
    const issue = repo.issues[number - 1];
    const okKind = issue && (kind === null || (kind === "PullRequest") === !!issue.pr);
    if (!issue || !okKind)
      throw gqlError(
        "NOT_FOUND",
        `Could not resolve to ${kind === "Issue" ? "an Issue" : kind === "PullRequest" ? "a PullRequest" : "an issue or pull request"} with the number of ${number}.`,
      );
    return issueNode(ctx, repo, issue);
  };
  const role = roleOf(repo, ctx.viewer.login);
  return {
    __typename: "Repository",
    id: nodeId("R", repo.id),
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: `${repo.owner}/${repo.name}`,
    owner: () => userNode(ctx, repo.owner),
    url: repoHtml(ctx.app.urls, repo),
    isPrivate: repo.private,
    deleteBranchOnMerge: repo.deleteBranchOnMerge,
    squashMergeAllowed: repo.allowSquashMerge,
    mergeCommitAllowed: repo.allowMergeCommit,
    rebaseMergeAllowed: repo.allowRebaseMerge,
    viewerPermission: role === "none" ? (repo.private ? null : "READ") : role.toUpperCase(),
    defaultBranchRef: {
      name: repo.defaultBranch,
      prefix: "refs/heads/",
      target: async () => {
        const sha = await ctx.app.commits.commit(ctx.app.gitDir(repo), `refs/heads/${repo.defaultBranch}`);
        return sha ? { __typename: "Commit", oid: sha } : null;
      },
    },
    issues: (args: ConnectionArgs & Parameters<typeof issueFilter>[0] & { orderBy?: { field: string; direction: string } | null }) => {
      const keep = issueFilter(args, repo);
      const list = repo.issues.filter((i) => !i.pr && keep(i));
      const field = args.orderBy?.field ?? "CREATED_AT";
      const key = (i: IssueRec): number =>
        field === "CREATED_AT" ? i.id : field === "UPDATED_AT" ? Date.parse(i.updatedAt) * 1e4 + (i.id % 1e4) : i.comments.length * 1e9 + i.id;
      list.sort((a, b) => key(a) - key(b));
      if (args.orderBy?.direction === "DESC") list.reverse();
      return connection("issues", list, args, (i) => issueNode(ctx, repo, i));
    },
    issue: ({ number }: { number: number }) => byNumber(number, "Issue"),
    pullRequest: ({ number }: { number: number }) => byNumber(number, "PullRequest"),
    issueOrPullRequest: ({ number }: { number: number }) => byNumber(number, null),
    pullRequests: (args: ConnectionArgs & { states?: string[] | null; headRefName?: string | null; baseRefName?: string | null; labels?: string[] | null }) => {
      const list = repo.issues.filter((i) => {
        if (!i.pr) return false;
        const state = i.pr.merged ? "MERGED" : i.state === "open" ? "OPEN" : "CLOSED";
        if (args.states?.length && !args.states.includes(state)) return false;
        if (args.headRefName && i.pr.head !== args.headRefName) return false;
        if (args.baseRefName && i.pr.base !== args.baseRefName) return false;
        return true;
      });
      return connection("pullRequests", list, args, (i) => issueNode(ctx, repo, i));
    },
    labels: (args: ConnectionArgs & { query?: string | null }) => {
      const q = args.query?.toLowerCase();
      return connection(
        "labels",
        repo.labels.filter((l) => !q || l.name.toLowerCase().includes(q)),
        args,
        (l) => labelNode(ctx, repo, l),
      );
    },
    label: ({ name }: { name: string }) => {
      const l = repo.labels.find((x) => x.name.toLowerCase() === name.toLowerCase());
      return l ? labelNode(ctx, repo, l) : null;
    },
    assignableUsers: (args: ConnectionArgs & { query?: string | null }) => {
      const users = Object.values(ctx.state.users).filter((u) => hasRole(repo, u.login, "write") && (!args.query || u.login.includes(args.query)));
      return connection("assignableUsers", users, args, (u) => userNode(ctx, u.login));
    },
  };
}

export function findRepoForGql(ctx: GqlCtx, owner: string, name: string): RepoRec {
  const repo = ctx.state.repos[`${owner}/${name}`.toLowerCase()];
  if (!repo || !canRead(repo, ctx.viewer.login)) throw gqlError("NOT_FOUND", `Could not resolve to a Repository with the name '${owner}/${name}'.`);
  return repo;
}
