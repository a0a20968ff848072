/**
 * The claim's read-back in the claim write's own request (ADR 0380). Every mutation the claim write
 * sends has the issue in its payload (`addComment` its `subject`, the label and assignee mutations
 * their `labelable` / `assignable`, `updateIssueComment` its comment's `issue`), so the document's
 * last mutation selects the issue with its labels, assignees and newest comments: what the issue
 * looks like once every write before it in the document is applied, read in the same request.
 * A thread longer than one page reads its older comments with queries, newest page first.
 */
import { z } from "zod";
import type { IssueThread, RepoRef } from "../../ports/tracker";
import type { GitHubClient } from "./client";
import type { NodeIds } from "./issue-thread";
import { issueFromGql, toComment } from "./issue-thread";
import { check, GQL_COMMENT_FIELDS, gqlComment, gqlIssueCore, type GqlComment } from "./schemas";

/** The issue as the read-back selects it (an inline fragment on Issue: the payloads type it as Node, Labelable or Assignable). */
export const READ_BACK_FIELDS = `... on Issue { id number title body state url labels(first: 100) { nodes { id name } } assignees(first: 50) { nodes { id login } } comments(last: 100) { pageInfo { hasPreviousPage startCursor } nodes { ${GQL_COMMENT_FIELDS} } } }`;

const backPage = z.object({ pageInfo: z.object({ hasPreviousPage: z.boolean(), startCursor: z.string().nullable() }), nodes: z.array(gqlComment.nullable()) });

const readBackIssue = gqlIssueCore.extend({ comments: backPage });

const olderPage = z.object({ repository: z.object({ issue: z.object({ comments: backPage }).nullable() }).nullable() });

const OLDER_COMMENTS = /* GraphQL */ `
  query ClaimReadBackOlder($owner: String!, $name: String!, $number: Int!, $before: String) {
    repository(owner: $owner, name: $name) {
      issue(number: $number) { comments(last: 100, before: $before) { pageInfo { hasPreviousPage startCursor } nodes { ${GQL_COMMENT_FIELDS} } } }
    }
  }
`;

/** The thread from the payload's issue (`node`), with the older pages of a long thread read after it. */
export async function threadFromPayload(octokit: GitHubClient, repo: RepoRef, ids: NodeIds, number: number, node: unknown): Promise<IssueThread> {
  const issue = check(readBackIssue, node, `issue #${number} in the answer to the claim write`);
  const pages: GqlComment[][] = [issue.comments.nodes.flatMap((c) => (c ? [c] : []))];
  let page = issue.comments.pageInfo;
  while (page.hasPreviousPage && page.startCursor) {
    const more = check(
      olderPage,
      await octokit.graphql(OLDER_COMMENTS, { owner: repo.owner, name: repo.repo, number, before: page.startCursor }),
      `comments of #${number}`,
    );
    const conn = more.repository?.issue?.comments;
    if (!conn) break;
    pages.unshift(conn.nodes.flatMap((c) => (c ? [c] : [])));
    page = conn.pageInfo;
  }
  const nodes = pages.flat();
  for (const c of nodes) ids.comments.set(c.fullDatabaseId, c.id);
  return {
    issue: issueFromGql(ids, issue),
    comments: nodes.map(toComment),
  };
}
