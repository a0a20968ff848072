/**
 * The sandbox's whole state as plain JSON-able records. Everything GitHub would keep in its
 * database lives here; git objects and refs live in real bare repositories next to it.
 */
import { sandboxNow } from "./clock";

/** The sandbox's own administrator: admin on every repository, the admin API's caller. */
export const ADMIN_LOGIN = "sandbox-admin";

export type Role = "admin" | "write" | "read" | "none";

export interface UserRec {
  id: number;
  login: string;
  token: string;
  /** The token's classic OAuth scopes (GitHub's X-OAuth-Scopes). Absent: every scope. */
  scopes?: string[];
  createdAt: string;
}

export interface LabelRec {
  id: number;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}

export interface CommentRec {
  id: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface EventRec {
  id: number;
  event: string;
  actor: string;
  createdAt: string;
  label?: { name: string; color: string };
  assignee?: string;
  commitId?: string;
  rename?: { from: string; to: string };
}

export interface PullRec {
  head: string;
  headSha: string;
  base: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: string | null;
  mergeCommitSha: string | null;
  /**
   * Cached mergeability for one (head, base) pair; absent means "still computing" (GitHub's null).
   * `tree`: the merged tree `git merge-tree --write-tree` wrote for the pair, which a merge of the
   * same pair commits without merging again (ADR 0471).
   */
  mergeable?: { headSha: string; baseSha: string; value: boolean; tree?: string };
}

export interface IssueRec {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  stateReason: string | null;
  user: string;
  labels: number[];
  assignees: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  closedBy: string | null;
  comments: CommentRec[];
  events: EventRec[];
  /** Database ids of issues that block this one (GitHub issue dependencies). */
  blockedBy: number[];
  pr?: PullRec;
  /** Each version of the body with its editor, oldest first, as GitHub's `userContentEdits` (absent until the first edit). */
  edits?: ContentEditRec[];
}

export interface ContentEditRec {
  id: number;
  editor: string;
  editedAt: string;
  /** The whole body as of this edit (GitHub's `diff` field carries the text of that version). */
  diff: string;
}

export interface CheckRunRec {
  id: number;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  app: string;
}

/** A check run as it is made, by an App's POST or the sandbox's own CI: queued, nothing reported yet. */
export function queuedCheckRun(id: number, name: string, headSha: string, app: string): CheckRunRec {
  return {
    id,
    name,
    headSha,
    status: "queued",
    conclusion: null,
    startedAt: null,
    completedAt: null,
    detailsUrl: null,
    externalId: null,
    output: { title: null, summary: null, text: null },
    app,
  };
}

export interface StatusRec {
  id: number;
  sha: string;
  state: "error" | "failure" | "pending" | "success";
  context: string;
  description: string | null;
  targetUrl: string | null;
  creator: string;
  createdAt: string;
  updatedAt: string;
}

export interface CiScript {
  conclusion?: "success" | "failure";
  delayMs?: number;
}

export interface RepoRec {
  id: number;
  owner: string;
  name: string;
  defaultBranch: string;
  private: boolean;
  description: string | null;
  allowSquashMerge: boolean;
  allowMergeCommit: boolean;
  allowRebaseMerge: boolean;
  deleteBranchOnMerge: boolean;
  /** Repository rulesets (./rulesets.ts reads and checks them); absent in state saved before them. */
  rulesets?: RulesetRec[];
  /** Secret scanning push protection (`security_and_analysis`). */
  pushProtection?: boolean;
  ciCommand: string[] | null;
  ciScript: CiScript | null;
  roles: Record<string, Role>;
  labels: LabelRec[];
  /** Issues and pull requests share one number space: issues[n - 1] is number n. */
  issues: IssueRec[];
  checkRuns: CheckRunRec[];
  statuses: StatusRec[];
  createdAt: string;
  updatedAt: string;
  pushedAt: string;
}

/** A repository ruleset (./rulesets.ts, ADR 0241). */
export interface RulesetRec {
  id: number;
  name: string;
  include: string[];
  exclude: string[];
  nonFastForward: boolean;
  deletion: boolean;
  update: boolean;
  /** A pull request is required; this many approving reviews (the sandbox has no reviews, so any > 0 refuses a merge). */
  pullRequest: { approvals: number } | null;
  requiredChecks: string[];
  /** "Require merge queue": its parameters as given, echoed back as GitHub does. */
  mergeQueue: Record<string, unknown> | null;
  createdAt: string;
}

export interface SandboxState {
  version: 1;
  nextId: number;
  users: Record<string, UserRec>;
  /** Keyed by lower-case "owner/name": GitHub names are case-insensitive. */
  repos: Record<string, RepoRec>;
}

/**
 * Where the sandbox starts numbering every object: past 2^32, as github.com's comment ids are
 * (3,076,667,581 was a real one in 2025), so no client can get away with a 32-bit id (ADR 0130).
 */
export const FIRST_ID = 2 ** 32 + 1_000;

export function emptyState(): SandboxState {
  return { version: 1, nextId: FIRST_ID, users: {}, repos: {} };
}

/** GitHub timestamps have second precision and a literal Z. */
export function isoNow(ms: number = sandboxNow()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function repoKey(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}
