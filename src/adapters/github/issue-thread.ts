/**
 * Reading one issue for the claim protocol: ONE GraphQL query gives the issue, its labels and
 * assignees, its comments (100 a page; more pages only on long threads), recent `labeled` events
 * with their actors and times, who edited the body, and the viewer's login and permission. Node ids seen on the way are cached
 * so the claim write needs no lookups of its own.
 */
import { GraphqlResponseError } from "@octokit/graphql";
import type { IssueThread, Permission, RepoRef, TrackerComment } from "../../ports/tracker";
import type { GitHubClient } from "./client";
import { check, GQL_COMMENT_FIELDS, gqlCommentsPage, gqlThread, type GqlComment, type GqlIssueCore } from "./schemas";
import type { GithubId } from "../../core/schemas/github-id";

export class NodeIds {
  readonly issues = new Map<number, string>();
  readonly labels = new Map<string, string>();
  readonly users = new Map<string, string>();
  readonly comments = new Map<GithubId, string>();
  labelsLoaded = false;
  /** The repository's whole label list was read (fewer than a page): a name missing from it does not exist. */
  labelsComplete = false;
  viewer: { login: string; id: string } | null = null;

  label(name: string): string | undefined {
    return this.labels.get(name.toLowerCase());
  }
  setLabel(name: string, id: string): void {
    this.labels.set(name.toLowerCase(), id);
  }
}

function threadQuery(withRepoLabels: boolean): string {
  return /* GraphQL */ `
    query ClaimThread($owner: String!, $name: String!, $number: Int!) {
      viewer { login id }
      repository(owner: $owner, name: $name) {
        viewerPermission
        ${withRepoLabels ? "labels(first: 100) { nodes { id name } }" : ""}
        issue(number: $number) {
          id number title body state url
          labels(first: 100) { nodes { id name } }
          assignees(first: 50) { nodes { id login } }
          comments(first: 100) { pageInfo { hasNextPage endCursor } nodes { ${GQL_COMMENT_FIELDS} } }
          timelineItems(itemTypes: [LABELED_EVENT], last: 50) { nodes { ... on LabeledEvent { createdAt actor { login } label { name } } } }
          userContentEdits(first: 100) { nodes { editedAt editor { login } } }
        }
      }
    }
  `;
}

const MORE_COMMENTS = /* GraphQL */ `
  query ClaimThreadComments($owner: String!, $name: String!, $number: Int!, $after: String) {
    repository(owner: $owner, name: $name) {
      issue(number: $number) { comments(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${GQL_COMMENT_FIELDS} } } }
    }
  }
`;

const PERMISSION: Record<string, Permission> = { ADMIN: "admin", MAINTAIN: "maintain", WRITE: "write", TRIAGE: "triage", READ: "read" };

/** The issue as the port reads it; the node ids of its labels and assignees are kept for later writes. */
export function issueFromGql(ids: NodeIds, issue: GqlIssueCore): IssueThread["issue"] {
  const labels = (issue.labels?.nodes ?? []).flatMap((l) => (l ? [l] : []));
  for (const l of labels) ids.setLabel(l.name, l.id);
  const assignees = issue.assignees.nodes.flatMap((a) => (a ? [a] : []));
  for (const a of assignees) ids.users.set(a.login.toLowerCase(), a.id);
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state === "OPEN" ? "open" : "closed",
    labels: labels.map((l) => l.name),
    assignees: assignees.map((a) => a.login),
    url: issue.url,
  };
}

export function toComment(c: GqlComment): TrackerComment {
  return { id: c.fullDatabaseId, body: c.body, author: c.author?.login ?? "ghost", url: c.url, createdAt: c.createdAt, updatedAt: c.updatedAt };
}

/** A GraphQL NOT_FOUND (an issue number that is a PR, or none at all) reads as "no such issue". */
function isNotFound(error: unknown): boolean {
  return error instanceof GraphqlResponseError && (error.errors ?? []).some((e) => (e as { type?: string }).type === "NOT_FOUND");
}

export async function readIssueThread(octokit: GitHubClient, repo: RepoRef, ids: NodeIds, number: number): Promise<IssueThread | null> {
  const vars = { owner: repo.owner, name: repo.repo, number };
  let raw: unknown;
  const withLabels = !ids.labelsLoaded;
  try {
    raw = await octokit.graphql(threadQuery(withLabels), vars);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  const data = check(gqlThread, raw, `issue #${number} with its comments`);
  ids.viewer = data.viewer;
  ids.users.set(data.viewer.login.toLowerCase(), data.viewer.id);
  const repoData = data.repository;
  if (!repoData) return null;
  if (withLabels && repoData.labels) {
    for (const l of repoData.labels.nodes) if (l) ids.setLabel(l.name, l.id);
    ids.labelsLoaded = true;
    ids.labelsComplete = repoData.labels.nodes.length < 100;
  }
  const issue = repoData.issue;
  if (!issue) return null;
  ids.issues.set(number, issue.id);

  const nodes: GqlComment[] = issue.comments.nodes.flatMap((c) => (c ? [c] : []));
  let page = issue.comments.pageInfo;
  while (page.hasNextPage) {
    const more = check(gqlCommentsPage, await octokit.graphql(MORE_COMMENTS, { ...vars, after: page.endCursor }), `comments of #${number}`);
    const conn = more.repository?.issue?.comments;
    if (!conn) break;
    nodes.push(...conn.nodes.flatMap((c) => (c ? [c] : [])));
    page = conn.pageInfo;
  }
  for (const c of nodes) ids.comments.set(c.fullDatabaseId, c.id);

  const labelActors: Record<string, string[]> = {};
  const labeledAt: Record<string, string> = {};
  for (const e of issue.timelineItems?.nodes ?? []) {
    if (!e?.label) continue;
    const at = e.createdAt;
    const prev = labeledAt[e.label.name];
    if (at && (!prev || at > prev)) labeledAt[e.label.name] = at;
    if (e.actor) (labelActors[e.label.name] ??= []).push(e.actor.login);
  }
  return {
    issue: issueFromGql(ids, issue),
    comments: nodes.map(toComment),
    labelActors,
    labeledAt,
    ...(issue.userContentEdits
      ? { bodyEdits: issue.userContentEdits.nodes.flatMap((n) => (n ? [{ editor: n.editor?.login ?? null, editedAt: n.editedAt }] : [])) }
      : {}),
    viewer: { login: data.viewer.login, permission: PERMISSION[repoData.viewerPermission ?? ""] ?? "none" },
  };
}
