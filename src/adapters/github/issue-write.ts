/**
 * The claim write: ONE GraphQL document carrying every mutation (assign, labels on, labels off, the
 * lease comment, superseded edits, unassign last). GitHub runs a document's mutations in order.
 * It is a POST that creates a comment, so it is never retried blindly (src/adapters/github/client.ts):
 * when its response is lost, the protocol's read-back finds out whether it landed.
 * Node ids come from the cache a thread read filled; anything missing costs one lookup first, and a
 * label the repository lacks is created (REST, once).
 */
import { GraphqlResponseError } from "@octokit/graphql";
import { Failure } from "../../core/errors";
import type { IssueThread, IssueWrite, RepoRef, TrackerComment } from "../../ports/tracker";
import type { GitHubClient } from "./client";
import type { NodeIds } from "./issue-thread";
import { toComment } from "./issue-thread";
import { READ_BACK_FIELDS, threadFromPayload } from "./issue-read-back";
import { check, GQL_COMMENT_FIELDS, gqlComment, gqlIssueId, gqlLabelIds, gqlUserId, restComment, restLabel, restPathId } from "./schemas";
import type { GithubId } from "../../core/schemas/github-id";

async function issueId(octokit: GitHubClient, repo: RepoRef, ids: NodeIds, number: number): Promise<string> {
  const known = ids.issues.get(number);
  if (known) return known;
  const q = `query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { issue(number: $number) { id } } }`;
  const data = check(gqlIssueId, await octokit.graphql(q, { owner: repo.owner, name: repo.repo, number }), `the id of issue #${number}`);
  const id = data.repository?.issue?.id;
  if (!id) throw new Failure("github", `Issue #${number} was not found on ${repo.owner}/${repo.repo}.`);
  ids.issues.set(number, id);
  return id;
}

/** Label ids by name; creates labels that do not exist yet when `create` is set. */
async function labelIds(octokit: GitHubClient, repo: RepoRef, ids: NodeIds, names: string[], create: boolean): Promise<string[]> {
  const missing = names.filter((n) => !ids.label(n));
  if (missing.length && !ids.labelsComplete) {
    const fields = missing.map((n, i) => `l${i}: label(name: ${JSON.stringify(n)}) { id name }`).join(" ");
    const q = `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { ${fields} } }`;
    const data = check(gqlLabelIds, await octokit.graphql(q, { owner: repo.owner, name: repo.repo }), "label ids");
    for (const v of Object.values(data.repository ?? {})) if (v) ids.setLabel(v.name, v.id);
  }
  const out: string[] = [];
  for (const name of names) {
    let id = ids.label(name);
    if (!id && create) {
      try {
        const res = await octokit.request("POST /repos/{owner}/{repo}/labels", {
          owner: repo.owner,
          repo: repo.repo,
          name,
          color: name.startsWith("claim:") ? "c5def5" : "fbca04",
        });
        id = check(restLabel, res.data, `label ${name}`).node_id;
      } catch (error) {
        // 422 already_exists: someone created it in the meantime.
        if ((error as { status?: number }).status !== 422) throw error;
        const res = await octokit.request("GET /repos/{owner}/{repo}/labels/{name}", { owner: repo.owner, repo: repo.repo, name });
        id = check(restLabel, res.data, `label ${name}`).node_id;
      }
      if (id) ids.setLabel(name, id);
    }
    if (id) out.push(id);
  }
  return out;
}

async function userIds(octokit: GitHubClient, ids: NodeIds, logins: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const login of logins) {
    let id = ids.users.get(login.toLowerCase());
    if (!id) {
      const data = check(gqlUserId, await octokit.graphql(`query($login: String!) { user(login: $login) { id login } }`, { login }), `user ${login}`);
      id = data.user?.id;
      if (!id) throw new Failure("github", `GitHub user ${login} was not found.`);
      ids.users.set(login.toLowerCase(), id);
    }
    out.push(id);
  }
  return out;
}

async function commentNodeId(octokit: GitHubClient, repo: RepoRef, ids: NodeIds, commentId: GithubId): Promise<string> {
  const known = ids.comments.get(commentId);
  if (known) return known;
  const res = await octokit.request("GET /repos/{owner}/{repo}/issues/comments/{comment_id}", {
    owner: repo.owner,
    repo: repo.repo,
    comment_id: restPathId(commentId),
  });
  const c = check(restComment, res.data, `comment ${commentId}`);
  if (!c.node_id) throw new Failure("github", `Comment ${commentId} came back without a node id.`);
  ids.comments.set(commentId, c.node_id);
  return c.node_id;
}

/** One mutation of the document: its alias, call, and what it selects with and without the read-back. */
interface Op {
  alias: string;
  call: string;
  plain: string;
  /** The selection that reads the issue back (READ_BACK_FIELDS) through this mutation's payload. */
  readBack: string;
}

/**
 * Applies the writes in one GraphQL document; with `readBack`, the document's last mutation also
 * selects the issue as it stands after them all (./issue-read-back.ts, ADR 0380).
 */
export async function writeIssueDocument(
  octokit: GitHubClient,
  repo: RepoRef,
  ids: NodeIds,
  number: number,
  write: IssueWrite,
  readBack: boolean,
): Promise<{ comment: TrackerComment | null; thread: IssueThread | null }> {
  const subject = await issueId(octokit, repo, ids, number);
  const [add, remove, assign, unassign] = await Promise.all([
    labelIds(octokit, repo, ids, write.addLabels ?? [], true),
    labelIds(octokit, repo, ids, write.removeLabels ?? [], false),
    userIds(octokit, ids, write.addAssignees ?? []),
    userIds(octokit, ids, write.removeAssignees ?? []),
  ]);
  const edits = await Promise.all((write.editComments ?? []).map(async (e) => ({ id: await commentNodeId(octokit, repo, ids, e.id), body: e.body })));
  const rewriteId = write.comment?.id !== undefined ? await commentNodeId(octokit, repo, ids, write.comment.id) : null;

  const vars: Record<string, unknown> = { subject };
  const decl: string[] = ["$subject: ID!"];
  const ops: Op[] = [];
  const use = (name: string, type: string, value: unknown) => {
    vars[name] = value;
    decl.push(`$${name}: ${type}`);
  };
  const asAssignable = `assignable { ${READ_BACK_FIELDS} }`;
  const asLabelable = `labelable { ${READ_BACK_FIELDS} }`;
  if (assign.length) {
    use("assign", "[ID!]!", assign);
    const call = `addAssigneesToAssignable(input: { assignableId: $subject, assigneeIds: $assign })`;
    ops.push({ alias: "assign", call, plain: "clientMutationId", readBack: asAssignable });
  }
  if (add.length) {
    use("add", "[ID!]!", add);
    ops.push({
      alias: "labelsOn",
      call: `addLabelsToLabelable(input: { labelableId: $subject, labelIds: $add })`,
      plain: "clientMutationId",
      readBack: asLabelable,
    });
  }
  if (remove.length) {
    use("remove", "[ID!]!", remove);
    const call = `removeLabelsFromLabelable(input: { labelableId: $subject, labelIds: $remove })`;
    ops.push({ alias: "labelsOff", call, plain: "clientMutationId", readBack: asLabelable });
  }
  if (write.comment) {
    use("body", "String!", write.comment.body);
    if (rewriteId) {
      use("commentId", "ID!", rewriteId);
      const plain = `issueComment { ${GQL_COMMENT_FIELDS} }`;
      ops.push({
        alias: "comment",
        call: `updateIssueComment(input: { id: $commentId, body: $body })`,
        plain,
        readBack: `issueComment { ${GQL_COMMENT_FIELDS} issue { ${READ_BACK_FIELDS} } }`,
      });
    } else {
      const plain = `commentEdge { node { ${GQL_COMMENT_FIELDS} } }`;
      ops.push({
        alias: "comment",
        call: `addComment(input: { subjectId: $subject, body: $body })`,
        plain,
        readBack: `${plain} subject { ${READ_BACK_FIELDS} }`,
      });
    }
  }
  edits.forEach((e, i) => {
    use(`edit${i}Id`, "ID!", e.id);
    use(`edit${i}Body`, "String!", e.body);
    const call = `updateIssueComment(input: { id: $edit${i}Id, body: $edit${i}Body })`;
    ops.push({ alias: `edit${i}`, call, plain: "clientMutationId", readBack: `issueComment { issue { ${READ_BACK_FIELDS} } }` });
  });
  if (unassign.length) {
    use("unassign", "[ID!]!", unassign);
    const call = `removeAssigneesFromAssignable(input: { assignableId: $subject, assigneeIds: $unassign })`;
    ops.push({ alias: "unassign", call, plain: "clientMutationId", readBack: asAssignable });
  }
  if (ops.length === 0) return { comment: null, thread: null };
  // GraphQL refuses a declared variable no operation uses: an adopt that only rewrites the lease
  // comment (labels and assignee already in place) never names the issue.
  if (!ops.some((op) => op.call.includes("$subject"))) {
    decl.shift();
    delete vars.subject;
  }
  const last = ops[ops.length - 1]!;
  const lines = ops.map((op) => `${op.alias}: ${op.call} { ${readBack && op === last ? op.readBack : op.plain} }`);
  const doc = `mutation ClaimWrite(${decl.join(", ")}) {\n  ${lines.join("\n  ")}\n}`;

  let data: unknown;
  try {
    data = await octokit.graphql(doc, vars);
  } catch (error) {
    if (error instanceof GraphqlResponseError) {
      const messages = (error.errors ?? []).map((e) => e.message).join("; ");
      throw new Failure("github", `GitHub refused part of the write on #${number}: ${messages}`, { cause: error });
    }
    throw error;
  }
  const root = (data ?? {}) as Record<string, Record<string, unknown> | null | undefined>;
  let comment: TrackerComment | null = null;
  if (write.comment) {
    const payload = root.comment as { issueComment?: unknown; commentEdge?: { node?: unknown } } | undefined;
    const c = check(gqlComment, rewriteId ? payload?.issueComment : payload?.commentEdge?.node, `the lease comment written on #${number}`);
    ids.comments.set(c.fullDatabaseId, c.id);
    comment = toComment(c);
  }
  if (!readBack) return { comment, thread: null };
  const payload = root[last.alias] ?? {};
  const node =
    "subject" in payload
      ? payload.subject
      : "issueComment" in payload
        ? (payload.issueComment as { issue?: unknown } | null)?.issue
        : (payload.assignable ?? payload.labelable);
  return { comment, thread: await threadFromPayload(octokit, repo, ids, number, node) };
}

export async function writeIssue(octokit: GitHubClient, repo: RepoRef, ids: NodeIds, number: number, write: IssueWrite): Promise<TrackerComment | null> {
  return (await writeIssueDocument(octokit, repo, ids, number, write, false)).comment;
}
