/** GitHub's pull request JSON (https://docs.github.com/rest/pulls/pulls#get-a-pull-request). */
import type { App } from "./app";
import type { IssueRec, RepoRec, SandboxState } from "./model";
import { issueJson, repoApi, repoJson, userJson } from "./serialize";

export function pullJson(state: SandboxState, app: App, repo: RepoRec, issue: IssueRec, baseSha: string | null, full: boolean): Record<string, unknown> {
  const pr = issue.pr;
  if (!pr) throw new Error("pullJson called on an issue");
  const asIssue = issueJson(state, app.urls, repo, issue);
  const repoObj = repoJson(state, app.urls, repo, null, app.gitUrl(repo.owner, repo.name));
  const owner = userJson(state, app.urls, repo.owner);
  const api = `${repoApi(app.urls, repo)}/pulls/${issue.number}`;
  const json: Record<string, unknown> = {
    id: issue.id,
    node_id: asIssue.node_id,
    url: api,
    html_url: asIssue.html_url,
    issue_url: `${repoApi(app.urls, repo)}/issues/${issue.number}`,
    diff_url: `${asIssue.html_url}.diff`,
    patch_url: `${asIssue.html_url}.patch`,
    number: issue.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    body: issue.body,
    user: asIssue.user,
    labels: asIssue.labels,
    assignee: asIssue.assignee,
    assignees: asIssue.assignees,
    milestone: null,
    draft: pr.draft,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: pr.mergedAt,
    merge_commit_sha: pr.mergeCommitSha,
    head: { label: `${repo.owner}:${pr.head}`, ref: pr.head, sha: pr.headSha, user: owner, repo: repoObj },
    base: { label: `${repo.owner}:${pr.base}`, ref: pr.base, sha: baseSha ?? "", user: owner, repo: repoObj },
    author_association: asIssue.author_association,
    auto_merge: null,
    _links: {
      self: { href: api },
      html: { href: asIssue.html_url },
      issue: { href: `${repoApi(app.urls, repo)}/issues/${issue.number}` },
      comments: { href: `${repoApi(app.urls, repo)}/issues/${issue.number}/comments` },
      review_comments: { href: `${api}/comments` },
      review_comment: { href: `${repoApi(app.urls, repo)}/pulls/comments{/number}` },
      commits: { href: `${api}/commits` },
      statuses: { href: `${repoApi(app.urls, repo)}/statuses/${pr.headSha}` },
    },
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${repoApi(app.urls, repo)}/pulls/comments{/number}`,
    comments_url: `${repoApi(app.urls, repo)}/issues/${issue.number}/comments`,
    statuses_url: `${repoApi(app.urls, repo)}/statuses/${pr.headSha}`,
    requested_reviewers: [],
    requested_teams: [],
  };
  if (!full) return json;
  const known = pr.mergeable && pr.mergeable.headSha === pr.headSha && pr.mergeable.baseSha === baseSha ? pr.mergeable.value : null;
  const mergeable = pr.merged || issue.state === "closed" ? null : known;
  json.merged = pr.merged;
  json.mergeable = mergeable;
  json.rebaseable = mergeable;
  json.mergeable_state = pr.merged ? "unknown" : pr.draft ? "draft" : mergeable === null ? "unknown" : mergeable ? "clean" : "dirty";
  json.merged_by = pr.mergedBy ? userJson(state, app.urls, pr.mergedBy) : null;
  json.comments = issue.comments.length;
  json.review_comments = 0;
  json.maintainer_can_modify = false;
  return json;
}
