/** GitHub's REST JSON shapes for sandbox records. */
import { createHash } from "node:crypto";
import type { Urls } from "./app";
import { association, hasRole } from "./auth";
import { nodeId } from "./ids";
import type { CommentRec, EventRec, IssueRec, LabelRec, RepoRec, SandboxState } from "./model";

export function userId(state: SandboxState, login: string): number {
  const u = state.users[login];
  if (u) return u.id;
  // An owner with no account (an "organization"): a stable id derived from its name.
  return 9_000_000 + (createHash("sha1").update(login).digest().readUInt32BE(0) % 1_000_000);
}

export function userJson(state: SandboxState, urls: Urls, login: string): Record<string, unknown> {
  const id = userId(state, login);
  return {
    login,
    id,
    node_id: nodeId("U", id),
    avatar_url: `${urls.api}/_sandbox/avatars/${encodeURIComponent(login)}`,
    gravatar_id: "",
    url: `${urls.api}/users/${login}`,
    html_url: `${urls.api}/${login}`,
    ...userLinks(`${urls.api}/users/${login}`),
    type: state.users[login] ? "User" : "Organization",
    site_admin: false,
  };
}

/** The hypermedia links GitHub's simple-user schema requires (RFC 6570 templates, as GitHub sends them). */
function userLinks(api: string): Record<string, string> {
  return {
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
  };
}

/** The hypermedia links GitHub's repository schemas require. */
function repoLinks(api: string): Record<string, string> {
  const t = (path: string) => `${api}/${path}`;
  return {
    archive_url: t("{archive_format}{/ref}"),
    assignees_url: t("assignees{/user}"),
    blobs_url: t("git/blobs{/sha}"),
    branches_url: t("branches{/branch}"),
    collaborators_url: t("collaborators{/collaborator}"),
    comments_url: t("comments{/number}"),
    commits_url: t("commits{/sha}"),
    compare_url: t("compare/{base}...{head}"),
    contents_url: t("contents/{+path}"),
    contributors_url: t("contributors"),
    deployments_url: t("deployments"),
    downloads_url: t("downloads"),
    events_url: t("events"),
    forks_url: t("forks"),
    git_commits_url: t("git/commits{/sha}"),
    git_refs_url: t("git/refs{/sha}"),
    git_tags_url: t("git/tags{/sha}"),
    hooks_url: t("hooks"),
    issue_comment_url: t("issues/comments{/number}"),
    issue_events_url: t("issues/events{/number}"),
    issues_url: t("issues{/number}"),
    keys_url: t("keys{/key_id}"),
    labels_url: t("labels{/name}"),
    languages_url: t("languages"),
    merges_url: t("merges"),
    milestones_url: t("milestones{/number}"),
    notifications_url: t("notifications{?since,all,participating}"),
    pulls_url: t("pulls{/number}"),
    releases_url: t("releases{/id}"),
    stargazers_url: t("stargazers"),
    statuses_url: t("statuses/{sha}"),
    subscribers_url: t("subscribers"),
    subscription_url: t("subscription"),
    tags_url: t("tags"),
    teams_url: t("teams"),
    trees_url: t("git/trees{/sha}"),
  };
}

export function repoApi(urls: Urls, repo: RepoRec): string {
  return `${urls.api}/repos/${repo.owner}/${repo.name}`;
}

export function repoHtml(urls: Urls, repo: RepoRec): string {
  return `${urls.api}/${repo.owner}/${repo.name}`;
}

export function labelJson(urls: Urls, repo: RepoRec, label: LabelRec): Record<string, unknown> {
  return {
    id: label.id,
    node_id: nodeId("LA", label.id),
    url: `${repoApi(urls, repo)}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: label.default,
    description: label.description,
  };
}

export function issueHtml(urls: Urls, repo: RepoRec, issue: IssueRec): string {
  return `${repoHtml(urls, repo)}/${issue.pr ? "pull" : "issues"}/${issue.number}`;
}

export function issueJson(state: SandboxState, urls: Urls, repo: RepoRec, issue: IssueRec): Record<string, unknown> {
  const api = `${repoApi(urls, repo)}/issues/${issue.number}`;
  const labels = issue.labels.map((id) => repo.labels.find((l) => l.id === id)).filter((l): l is LabelRec => !!l);
  const assignees = issue.assignees.map((a) => userJson(state, urls, a));
  const json: Record<string, unknown> = {
    id: issue.id,
    node_id: nodeId(issue.pr ? "PR" : "I", issue.id),
    url: api,
    repository_url: repoApi(urls, repo),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: issueHtml(urls, repo, issue),
    number: issue.number,
    state: issue.state,
    state_reason: issue.stateReason,
    title: issue.title,
    body: issue.body,
    user: userJson(state, urls, issue.user),
    labels: labels.map((l) => labelJson(urls, repo, l)),
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: issue.comments.length,
    closed_at: issue.closedAt,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_by: issue.closedBy ? userJson(state, urls, issue.closedBy) : null,
    author_association: association(repo, issue.user),
    issue_dependencies_summary: { blocked_by: openBlockerCount(state, issue), total_blocked_by: issue.blockedBy.length, blocking: 0, total_blocking: 0 },
  };
  if (issue.pr) {
    json.draft = issue.pr.draft;
    json.pull_request = {
      url: `${repoApi(urls, repo)}/pulls/${issue.number}`,
      html_url: issueHtml(urls, repo, issue),
      diff_url: `${issueHtml(urls, repo, issue)}.diff`,
      patch_url: `${issueHtml(urls, repo, issue)}.patch`,
      merged_at: issue.pr.mergedAt,
    };
  }
  return json;
}

function openBlockerCount(state: SandboxState, issue: IssueRec): number {
  let n = 0;
  for (const id of issue.blockedBy) {
    const found = findIssueById(state, id);
    if (found && found.issue.state === "open") n++;
  }
  return n;
}

export function findIssueById(state: SandboxState, id: number): { repo: RepoRec; issue: IssueRec } | null {
  for (const repo of Object.values(state.repos)) {
    for (const issue of repo.issues) if (issue.id === id) return { repo, issue };
  }
  return null;
}

export function commentJson(state: SandboxState, urls: Urls, repo: RepoRec, issue: IssueRec, c: CommentRec): Record<string, unknown> {
  return {
    id: c.id,
    node_id: nodeId("IC", c.id),
    url: `${repoApi(urls, repo)}/issues/comments/${c.id}`,
    html_url: `${issueHtml(urls, repo, issue)}#issuecomment-${c.id}`,
    issue_url: `${repoApi(urls, repo)}/issues/${issue.number}`,
    body: c.body,
    user: userJson(state, urls, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    author_association: association(repo, c.user),
  };
}

export function eventJson(state: SandboxState, urls: Urls, repo: RepoRec, e: EventRec): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: e.id,
    node_id: nodeId("LE", e.id),
    url: `${repoApi(urls, repo)}/issues/events/${e.id}`,
    actor: userJson(state, urls, e.actor),
    event: e.event,
    commit_id: e.commitId ?? null,
    commit_url: e.commitId ? `${repoApi(urls, repo)}/commits/${e.commitId}` : null,
    created_at: e.createdAt,
    performed_via_github_app: null,
  };
  if (e.label) json.label = e.label;
  if (e.assignee) {
    json.assignee = userJson(state, urls, e.assignee);
    json.assigner = userJson(state, urls, e.actor);
  }
  if (e.rename) json.rename = e.rename;
  return json;
}

function permissionsJson(repo: RepoRec, login: string | null | undefined): Record<string, boolean> {
  return {
    admin: hasRole(repo, login, "admin"),
    maintain: hasRole(repo, login, "admin"),
    push: hasRole(repo, login, "write"),
    triage: hasRole(repo, login, "write"),
    pull: hasRole(repo, login, "read"),
  };
}

export function repoJson(state: SandboxState, urls: Urls, repo: RepoRec, viewer: string | null | undefined, gitUrl: string): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: repo.id,
    node_id: nodeId("R", repo.id),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: userJson(state, urls, repo.owner),
    private: repo.private,
    visibility: repo.private ? "private" : "public",
    html_url: repoHtml(urls, repo),
    description: repo.description,
    fork: false,
    url: repoApi(urls, repo),
    ...repoLinks(repoApi(urls, repo)),
    clone_url: gitUrl,
    git_url: gitUrl,
    default_branch: repo.defaultBranch,
    allow_squash_merge: repo.allowSquashMerge,
    allow_merge_commit: repo.allowMergeCommit,
    allow_rebase_merge: repo.allowRebaseMerge,
    delete_branch_on_merge: repo.deleteBranchOnMerge,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    has_discussions: false,
    homepage: null,
    language: null,
    mirror_url: null,
    license: null,
    // Shaped as GitHub's; the sandbox serves git over HTTP only.
    ssh_url: `git@${new URL(urls.api || "http://localhost").host}:${repo.owner}/${repo.name}.git`,
    svn_url: repoHtml(urls, repo),
    network_count: 0,
    subscribers_count: 0,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 0,
    archived: false,
    disabled: false,
    open_issues_count: repo.issues.filter((i) => i.state === "open").length,
    open_issues: repo.issues.filter((i) => i.state === "open").length,
    created_at: repo.createdAt,
    updated_at: repo.updatedAt,
    pushed_at: repo.pushedAt,
  };
  if (viewer) json.permissions = permissionsJson(repo, viewer);
  return json;
}
