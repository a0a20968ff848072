/**
 * The Tracker port over GitHub's REST and GraphQL APIs (or the sandbox, which speaks both).
 * Construct with `new OctokitTracker(createOctokit({...}), { owner, repo })`.
 * Every response is checked with zod (./schemas.ts) before it reaches the core.
 */
import type {
  BodyHistory,
  CiReport,
  IssueThread,
  IssueWrite,
  MergeInput,
  MergeMethod,
  MergeResult,
  Permission,
  PullRequestInfo,
  RepoRef,
  Tracker,
  TrackerComment,
  TrackerIssue,
  WrittenWithThread,
} from "../../ports/tracker";
import { Failure } from "../../core/errors";
import type { GitHubClient } from "./client";
import { withOptionalFeature } from "./capabilities";
import { NodeIds, readIssueThread } from "./issue-thread";
import { writeIssueDocument } from "./issue-write";
import { Pulls } from "./pulls";
import { withSafeRetry } from "./safe-writes";
import {
  check,
  gqlBlockers,
  gqlBodyHistory,
  restComment,
  restPathId,
  restEvent,
  restIssue,
  restPermission,
  restRepo,
  restRepoAccess,
  restUser,
} from "./schemas";
import type { GithubId } from "../../core/schemas/github-id";
import { z } from "zod";

const gqlViewer = z.object({ viewer: z.object({ login: z.string().min(1) }) });

function status(error: unknown): number | undefined {
  return (error as { status?: number }).status;
}

function toIssue(raw: unknown): TrackerIssue | null {
  const i = check(restIssue, raw, "an issue");
  if (i.pull_request !== undefined) return null;
  return {
    number: i.number,
    title: i.title,
    body: i.body ?? "",
    state: i.state,
    labels: i.labels.map((l) => (typeof l === "string" ? l : l.name)),
    assignees: (i.assignees ?? []).map((a) => a.login),
    url: i.html_url,
  };
}

function toRestComment(raw: unknown): TrackerComment {
  const c = check(restComment, raw, "a comment");
  return { id: c.id, body: c.body ?? "", author: c.user?.login ?? "ghost", url: c.html_url, createdAt: c.created_at, updatedAt: c.updated_at };
}

const BLOCKERS_QUERY = `query Blockers($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { issue(number: $number) { blockedBy(first: 50) { nodes { number state } } } } }`;

export const BODY_HISTORY_QUERY = `query BodyHistory($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { issue(number: $number) { userContentEdits(first: 100) { nodes { editedAt editor { login } } } timelineItems(last: 100, itemTypes: [LABELED_EVENT]) { nodes { ... on LabeledEvent { createdAt label { name } } } } } } }`;

export class OctokitTracker implements Tracker {
  private readonly ids = new NodeIds();
  private readonly pulls: Pulls;
  private viewerLogin: string | null = null;

  constructor(
    readonly octokit: GitHubClient,
    readonly repo: RepoRef,
  ) {
    this.pulls = new Pulls(octokit, repo);
  }

  private get base() {
    return { owner: this.repo.owner, repo: this.repo.repo };
  }

  async viewer(): Promise<string> {
    if (this.viewerLogin) return this.viewerLogin;
    try {
      const res = await this.octokit.request("GET /user");
      this.viewerLogin = check(restUser, res.data, "the current user").login;
    } catch (error) {
      // An installation token (a GitHub App's, or Actions' own GITHUB_TOKEN) may not read /user:
      // 403 "Resource not accessible by integration". GraphQL's viewer names its bot.
      if (status(error) !== 403) throw error;
      this.viewerLogin = check(gqlViewer, await this.octokit.graphql("query { viewer { login } }"), "the current user (GraphQL viewer)").viewer.login;
    }
    return this.viewerLogin;
  }

  /**
   * One read of the repository serves the default branch and the merge methods, and the caller's
   * access read at a Run's start is that same read (ADR 0440): access() always reads afresh, and
   * leaves its answer for the two others.
   */
  private repoRead: Promise<unknown> | null = null;

  private readRepository(): Promise<unknown> {
    const read = this.octokit.request("GET /repos/{owner}/{repo}", this.base).then((res) => res.data as unknown);
    this.repoRead = read;
    read.catch(() => {
      if (this.repoRead === read) this.repoRead = null;
    });
    return read;
  }

  private async repository(): Promise<z.infer<typeof restRepo>> {
    return check(restRepo, await (this.repoRead ?? this.readRepository()), `repository ${this.repo.owner}/${this.repo.repo}`);
  }

  async defaultBranch(): Promise<string> {
    return (await this.repository()).default_branch;
  }

  async mergeMethods(): Promise<Record<MergeMethod, boolean> | null> {
    const r = await this.repository();
    if (r.allow_merge_commit === undefined || r.allow_squash_merge === undefined || r.allow_rebase_merge === undefined) return null;
    return { merge: r.allow_merge_commit, squash: r.allow_squash_merge, rebase: r.allow_rebase_merge };
  }

  async access(): Promise<Permission | null> {
    const p = check(restRepoAccess, await this.readRepository(), `repository ${this.repo.owner}/${this.repo.repo}`).permissions;
    if (!p) return null;
    if (p.admin) return "admin";
    if (p.maintain) return "maintain";
    if (p.push) return "write";
    if (p.triage) return "triage";
    return p.pull ? "read" : "none";
  }

  async permissionOf(user: string): Promise<Permission> {
    try {
      const res = await this.octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", { ...this.base, username: user });
      const p = check(restPermission, res.data, `the permission of ${user}`);
      // role_name carries maintain/triage, which `permission` folds into write/read.
      const role = p.role_name;
      if (role === "maintain" || role === "triage" || role === "admin" || role === "write" || role === "read") return role;
      return p.permission;
    } catch (error) {
      // Not a collaborator (or no such user): no access.
      if (status(error) === 404) return "none";
      throw error;
    }
  }

  async getIssue(number: number): Promise<TrackerIssue | null> {
    try {
      return toIssue((await this.octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}", { ...this.base, issue_number: number })).data);
    } catch (error) {
      if (status(error) === 404 || status(error) === 410) return null;
      throw error;
    }
  }

  async listOpenIssues(labels?: string[]): Promise<TrackerIssue[]> {
    // GitHub's `labels` filter means "all of these"; the port means "any of these": one listing per label.
    const queries = labels && labels.length ? labels.map((l) => ({ labels: l })) : [{}];
    const seen = new Map<number, TrackerIssue>();
    for (const q of queries) {
      const rows = await this.octokit.paginate("GET /repos/{owner}/{repo}/issues", { ...this.base, state: "open", per_page: 100, ...q });
      for (const raw of rows) {
        const issue = toIssue(raw);
        if (issue) seen.set(issue.number, issue);
      }
    }
    return [...seen.values()].sort((a, b) => a.number - b.number);
  }

  async listComments(number: number): Promise<TrackerComment[]> {
    const rows = await this.octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", { ...this.base, issue_number: number, per_page: 100 });
    return rows.map(toRestComment);
  }

  readIssueThread(number: number): Promise<IssueThread | null> {
    return readIssueThread(this.octokit, this.repo, this.ids, number);
  }

  async labelActors(number: number, label: string): Promise<string[]> {
    const rows = await this.octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/events", { ...this.base, issue_number: number, per_page: 100 });
    return rows
      .map((r) => check(restEvent, r, `events of #${number}`))
      .filter((e) => e.event === "labeled" && e.label?.name === label && e.actor)
      .map((e) => e.actor!.login);
  }

  async bodyHistory(number: number, label: string): Promise<BodyHistory> {
    const data = check(
      gqlBodyHistory,
      await this.octokit.graphql(BODY_HISTORY_QUERY, { owner: this.repo.owner, name: this.repo.repo, number }),
      `body edits of #${number}`,
    );
    const issue = data.repository?.issue;
    const labeled = (issue?.timelineItems.nodes ?? []).flatMap((n) => (n?.label?.name === label && n.createdAt ? [n.createdAt] : []));
    return {
      labeledAt: labeled.sort().pop() ?? null,
      edits: (issue?.userContentEdits?.nodes ?? []).flatMap((n) => (n ? [{ editor: n.editor?.login ?? null, editedAt: n.editedAt }] : [])),
    };
  }

  /** On a server without issue dependencies (an older GitHub Enterprise Server) nothing blocks: ./capabilities.ts. */
  async openBlockers(number: number): Promise<number[]> {
    const ask = async () => {
      const data = check(
        gqlBlockers,
        await this.octokit.graphql(BLOCKERS_QUERY, { owner: this.repo.owner, name: this.repo.repo, number }),
        `blockers of #${number}`,
      );
      return (data.repository?.issue?.blockedBy.nodes ?? []).flatMap((n) => (n && n.state === "OPEN" ? [n.number] : []));
    };
    return withOptionalFeature(this.octokit, "issueDependencies", this.octokit.log, ask, () => Promise.resolve([]));
  }

  /** One GraphQL document (a POST): sent again after a 5xx, safely (./safe-writes.ts). */
  async writeIssue(number: number, write: IssueWrite): Promise<TrackerComment | null> {
    return (await this.writeSafely(number, write, false)).comment;
  }

  /** writeIssue whose answer carries the issue thread after the write (./issue-read-back.ts, ADR 0380). */
  async writeIssueReadBack(number: number, write: IssueWrite): Promise<WrittenWithThread> {
    const { comment, thread } = await this.writeSafely(number, write, true);
    if (!thread) throw new Failure("github", `The write on #${number} wrote nothing, so it read nothing back.`);
    return { comment, thread };
  }

  private writeSafely(number: number, write: IssueWrite, readBack: boolean) {
    const created = write.comment && write.comment.id === undefined ? write.comment.body : null;
    const send = (w: IssueWrite) => writeIssueDocument(this.octokit, this.repo, this.ids, number, w, readBack);
    return withSafeRetry(() => send(write), {
      what: `the write on #${number}`,
      // A new comment that landed is not posted twice: the rest of the document is applied again
      // as an edit of it, which is idempotent.
      landed:
        created === null
          ? undefined
          : async () => {
              const mine = await this.ownComment(number, created);
              return mine ? send({ ...write, comment: { id: mine.id, body: created } }) : null;
            },
    });
  }

  async createComment(number: number, body: string): Promise<TrackerComment> {
    const post = async () =>
      toRestComment(
        (await this.octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { ...this.base, issue_number: number, body })).data,
      );
    return withSafeRetry(post, { what: `a comment on #${number}`, landed: () => this.ownComment(number, body) });
  }

  /** The latest comment on the issue by the current user with exactly this body. */
  private async ownComment(number: number, body: string): Promise<TrackerComment | null> {
    const viewer = await this.viewer();
    const all = await this.listComments(number);
    return [...all].reverse().find((c) => c.author.toLowerCase() === viewer.toLowerCase() && c.body === body) ?? null;
  }

  async updateComment(commentId: GithubId, body: string): Promise<TrackerComment> {
    const res = await this.octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
      ...this.base,
      comment_id: restPathId(commentId),
      body,
    });
    return toRestComment(res.data);
  }

  async ensureLabel(name: string, color: string, description: string): Promise<"created" | "exists"> {
    try {
      await this.octokit.request("POST /repos/{owner}/{repo}/labels", { ...this.base, name, color: color.replace(/^#/, ""), description });
      return "created";
    } catch (error) {
      if (status(error) === 422) return "exists";
      throw error;
    }
  }

  async closeIssue(number: number): Promise<void> {
    await this.octokit.request("PATCH /repos/{owner}/{repo}/issues/{issue_number}", { ...this.base, issue_number: number, state: "closed" });
  }

  async setIssueBody(number: number, body: string): Promise<void> {
    await this.octokit.request("PATCH /repos/{owner}/{repo}/issues/{issue_number}", { ...this.base, issue_number: number, body });
  }

  findPullRequest(head: string): Promise<PullRequestInfo | null> {
    return this.pulls.find(head);
  }
  getPullRequest(number: number): Promise<PullRequestInfo | null> {
    return this.pulls.get(number);
  }
  createPullRequest(input: { head: string; base: string; title: string; body: string; draft: boolean }): Promise<PullRequestInfo> {
    // A pull request that landed is the open one of this head: found, never opened twice.
    return withSafeRetry(() => this.pulls.create(input), { what: `the pull request for ${input.head}`, landed: () => this.pulls.find(input.head) });
  }
  updatePullRequest(number: number, input: { title?: string; body?: string }): Promise<PullRequestInfo> {
    return this.pulls.update(number, input);
  }
  setDraft(number: number, draft: boolean): Promise<void> {
    return withSafeRetry(() => this.pulls.setDraft(number, draft), { what: `pull request #${number}'s draft state` });
  }
  ciReport(ref: string): Promise<CiReport> {
    return this.pulls.ci(ref);
  }
  mergePullRequest(number: number, input: MergeInput): Promise<MergeResult> {
    return this.pulls.merge(number, input);
  }
}
