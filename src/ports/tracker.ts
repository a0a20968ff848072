/**
 * The Tracker port: everything the core asks of GitHub. The Octokit adapter implements it
 * against api.github.com or the sandbox; the core's unit tests use an in-memory fake.
 * Every value returned here has already been checked by zod at the adapter boundary.
 */
import type { GithubId } from "../core/schemas/github-id";

export interface RepoRef {
  owner: string;
  repo: string;
}

export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface TrackerComment {
  /** The comment's database id as a decimal string (past 2^31 on github.com; ADR 0130). */
  id: GithubId;
  body: string;
  author: string;
  url: string;
  createdAt: string;
  updatedAt: string;
}

export interface TrackerIssue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  labels: string[];
  assignees: string[];
  url: string;
  /** Present when the adapter fetched comments with the issue (board queries). */
  comments?: TrackerComment[];
  /** True when `comments` is not every comment on the issue. */
  commentsTruncated?: boolean;
}

export interface PullRequestInfo {
  number: number;
  url: string;
  state: "open" | "closed";
  merged: boolean;
  draft: boolean;
  head: string;
  headSha: string;
  base: string;
  title: string;
  body: string;
  /** null while GitHub is still computing it. */
  mergeable: boolean | null;
}

export type CiState = "pending" | "success" | "failure" | "none";

export interface CiReport {
  state: CiState;
  /** One line per check run or status, for hand-off evidence. */
  details: string[];
}

/**
 * One batch of writes that a claim or release makes; adapters send it in as few requests as they can
 * (the GitHub adapter: one GraphQL document). They are applied in this order, whatever the field
 * order: addAssignees, addLabels, removeLabels, comment, editComments, removeAssignees (last, so a
 * release never shows an unassigned issue that still looks claimed).
 */
export interface IssueWrite {
  addLabels?: string[];
  removeLabels?: string[];
  addAssignees?: string[];
  removeAssignees?: string[];
  /** Create a comment (id undefined) or rewrite one in place. */
  comment?: { id?: GithubId; body: string };
  /** Other comments rewritten in place (a take-over marks the displaced lease superseded). */
  editComments?: { id: GithubId; body: string }[];
}

/** Who changed an issue's body, and when its ready label was last applied (GitHub's `userContentEdits` and `labeled` events). */
export interface BodyHistory {
  /** When the label was last applied (its latest `labeled` event), or null when none is recorded. */
  labeledAt: string | null;
  /** Each version of the body with its editor (null: a deleted account), the original included, in any order. */
  edits: { editor: string | null; editedAt: string }[];
}

/** An issue with every comment on it, oldest first, and what the same request could tell besides. */
export interface IssueThread {
  issue: TrackerIssue;
  comments: TrackerComment[];
  /** Actors of recent `labeled` events, per label name, oldest first (absent when not read; a label missing here may still have older events). */
  labelActors?: Record<string, string[]>;
  /** The caller's login and permission on the repository, when read in the same request. */
  viewer?: { login: string; permission: Permission };
  /** When each label was last applied (its latest `labeled` event among those read), when read in the same request. */
  labeledAt?: Record<string, string>;
  /** Who edited the body and when (as bodyHistory's `edits`), when read in the same request. */
  bodyEdits?: BodyHistory["edits"];
}

/** A write and the issue's thread as GitHub answered it in the same request, right after the write (ADR 0380). */
export interface WrittenWithThread {
  comment: TrackerComment | null;
  thread: IssueThread;
}

/** Why GitHub refused a merge, when its words say (ADR 0241): the rule, and what a person changes. */
export interface MergeRefusal {
  reason: "required-reviews" | "required-checks" | "merge-method" | "merge-queue" | "rule-violation";
  cause: string;
  fix: string;
}

export type MergeMethod = "merge" | "squash" | "rebase";

export interface MergeInput {
  sha: string;
  method: MergeMethod;
  title?: string;
  message?: string;
  base?: string;
}

export interface MergeResult {
  merged: boolean;
  sha: string | null;
  reason?: string;
  refusal?: MergeRefusal;
}

export interface Tracker {
  readonly repo: RepoRef;
  viewer(): Promise<string>;
  defaultBranch(): Promise<string>;
  /** The merge methods the repository allows (GitHub's allow_merge_commit, allow_squash_merge, allow_rebase_merge); null when the server does not say. */
  mergeMethods(): Promise<Record<MergeMethod, boolean> | null>;
  permissionOf(user: string): Promise<Permission>;
  /** The caller's own permission on the repository; null when the API does not say (some App tokens). */
  access(): Promise<Permission | null>;

  getIssue(number: number): Promise<TrackerIssue | null>;
  listOpenIssues(labels?: string[]): Promise<TrackerIssue[]>;
  listComments(number: number): Promise<TrackerComment[]>;
  /** The issue and all its comments in as few requests as the API allows (one for up to 100 comments). Null when there is no such issue. */
  readIssueThread(number: number): Promise<IssueThread | null>;
  /** Actors who applied `label` to the issue, from its `labeled` events, oldest first. */
  labelActors(number: number, label: string): Promise<string[]>;
  /** Who edited the body, and when `label` was last applied. */
  bodyHistory(number: number, label: string): Promise<BodyHistory>;
  /** Open issues that block `number` (GitHub issue dependencies). */
  openBlockers(number: number): Promise<number[]>;

  /** Applies the writes in order. Returns the comment written, when there was one. */
  writeIssue(number: number, write: IssueWrite): Promise<TrackerComment | null>;
  /**
   * writeIssue, whose answer also carries the issue with every comment as they stand once the write
   * is applied: the claim's read-back in the write's own request (ADR 0380). The thread carries no
   * viewer, label events or body edits.
   */
  writeIssueReadBack(number: number, write: IssueWrite): Promise<WrittenWithThread>;
  createComment(number: number, body: string): Promise<TrackerComment>;
  updateComment(commentId: GithubId, body: string): Promise<TrackerComment>;
  ensureLabel(name: string, color: string, description: string): Promise<"created" | "exists">;
  closeIssue(number: number): Promise<void>;
  setIssueBody(number: number, body: string): Promise<void>;

  findPullRequest(head: string): Promise<PullRequestInfo | null>;
  getPullRequest(number: number): Promise<PullRequestInfo | null>;
  createPullRequest(input: { head: string; base: string; title: string; body: string; draft: boolean }): Promise<PullRequestInfo>;
  updatePullRequest(number: number, input: { title?: string; body?: string }): Promise<PullRequestInfo>;
  setDraft(number: number, draft: boolean): Promise<void>;
  ciReport(ref: string): Promise<CiReport>;
  /** `base` names the branch in a refusal's words (MergeRefusal). */
  mergePullRequest(number: number, input: MergeInput): Promise<MergeResult>;
}
