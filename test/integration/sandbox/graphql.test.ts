// Conformance: GraphQL (https://docs.github.com/graphql) through Octokit's graphql client.
import { strict as assert } from "node:assert";
import { graphql } from "@octokit/graphql";
import { closeWorld, makeWorld, OWNER, REPO } from "./support";
import type { World } from "./support";

const repo = { owner: OWNER, repo: REPO };

interface BoardIssue {
  id: string;
  number: number;
  labels: { nodes: { name: string }[] };
  assignees: { nodes: { login: string }[] };
  comments: {
    totalCount: number;
    nodes: { fullDatabaseId: string; body: string; author: { login: string }; authorAssociation: string; url: string; createdAt: string; updatedAt: string }[];
  };
}
interface Board {
  repository: { issues: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: BoardIssue[] } };
}

const BOARD = `query($owner: String!, $name: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    issues(first: 2, after: $after, states: OPEN, labels: ["ready-for-agent"], orderBy: {field: CREATED_AT, direction: ASC}) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes {
        id number
        labels(first: 20) { nodes { name } }
        assignees(first: 10) { nodes { login } }
        comments(last: 20) { totalCount nodes { fullDatabaseId body author { login } authorAssociation url createdAt updatedAt } }
      }
    }
  }
}`;

describe("sandbox GraphQL", function () {
  let w: World;
  let gql: typeof graphql;
  before(async () => {
    w = await makeWorld();
    gql = graphql.defaults({ baseUrl: w.sb.apiUrl, headers: { authorization: `token ${w.tokens.bob}` } });
    for (let i = 1; i <= 3; i++) await w.as("bob").issues.create({ ...repo, title: `t${i}`, labels: ["ready-for-agent"] });
    await w.as("bob").issues.create({ ...repo, title: "unlabelled" });
    for (let i = 0; i < 25; i++) await w.as("alice").issues.createComment({ ...repo, issue_number: 1, body: `c${i}` });
  });
  after(async () => closeWorld(w));

  it("viewer and rateLimit", async () => {
    const r = await gql<{ viewer: { login: string; id: string }; rateLimit: { limit: number; remaining: number } }>(
      "{ viewer { login id } rateLimit { limit remaining } }",
    );
    assert.equal(r.viewer.login, "bob");
    assert.match(r.viewer.id, /^U_/);
    assert.equal(r.rateLimit.limit, 5000);
  });

  it("the board query: issues by label with labels, assignees and the last 20 comments, paged by cursor", async () => {
    const page1 = await gql<Board>(BOARD, { owner: OWNER, name: REPO });
    const issues = page1.repository.issues;
    assert.equal(issues.totalCount, 3);
    assert.deepEqual(
      issues.nodes.map((i) => i.number),
      [1, 2],
    );
    assert.equal(issues.pageInfo.hasNextPage, true);
    const first = issues.nodes[0] as BoardIssue;
    assert.equal(first.comments.totalCount, 25);
    assert.equal(first.comments.nodes.length, 20);
    assert.equal(first.comments.nodes[19]?.body, "c24");
    assert.equal(first.comments.nodes[0]?.author.login, "alice");
    assert.equal(first.comments.nodes[0]?.authorAssociation, "COLLABORATOR");
    assert.match(first.comments.nodes[0]?.url ?? "", /#issuecomment-\d+$/);
    // Ids past 2^32, as on github.com: the BigInt string carries them (ADR 0130).
    assert.ok(BigInt(first.comments.nodes[0]?.fullDatabaseId ?? "0") > 2n ** 32n, "comment ids are past 2^32");
    const page2 = await gql<Board>(BOARD, { owner: OWNER, name: REPO, after: issues.pageInfo.endCursor });
    assert.deepEqual(
      page2.repository.issues.nodes.map((i) => i.number),
      [3],
    );
    assert.equal(page2.repository.issues.pageInfo.hasNextPage, false);
  });

  it("databaseId past 2^31 is a field error and null, as GitHub's 32-bit Int must answer; fullDatabaseId carries it", async () => {
    const q = `{ repository(owner: "${OWNER}", name: "${REPO}") { issue(number: 1) { fullDatabaseId comments(first: 1) { nodes { databaseId fullDatabaseId } } } } }`;
    const err = await gql(q).then(
      () => null,
      (e: {
        errors?: { message: string; path?: (string | number)[] }[];
        data?: { repository: { issue: { fullDatabaseId: string; comments: { nodes: { databaseId: number | null; fullDatabaseId: string }[] } } } };
      }) => e,
    );
    assert.ok(err, "the query is refused in part");
    assert.match(err.errors?.[0]?.message ?? "", /Int cannot represent non 32-bit signed integer/);
    assert.deepEqual(err.errors?.[0]?.path, ["repository", "issue", "comments", "nodes", 0, "databaseId"]);
    const node = err.data?.repository.issue.comments.nodes[0];
    assert.equal(node?.databaseId, null);
    assert.match(node?.fullDatabaseId ?? "", /^\d{10,}$/);
  });

  it("a connection without first/last is an error, as on GitHub", async () => {
    await assert.rejects(gql(`{ repository(owner: "${OWNER}", name: "${REPO}") { issues { totalCount } } }`), /must provide a `first` or `last`/);
  });

  it("an unknown repository is a NOT_FOUND error", async () => {
    await assert.rejects(
      gql(`{ repository(owner: "nope", name: "nope") { name } }`),
      (e: { errors?: { type?: string }[] }) => e.errors?.[0]?.type === "NOT_FOUND",
    );
  });

  it("repository.issue(number) and pullRequest(number) on an issue is NOT_FOUND", async () => {
    const r = await gql<{ repository: { issue: { title: string; state: string } } }>(
      `{ repository(owner: "${OWNER}", name: "${REPO}") { issue(number: 2) { title state } } }`,
    );
    assert.deepEqual(r.repository.issue, { title: "t2", state: "OPEN" });
    await assert.rejects(gql(`{ repository(owner: "${OWNER}", name: "${REPO}") { pullRequest(number: 2) { title } } }`), /Could not resolve to a PullRequest/);
  });

  it("several mutations in one document run in order, using global node ids", async () => {
    const ids = await gql<{ viewer: { id: string }; repository: { issue: { id: string }; label: { id: string }; inProgress: { id: string } } }>(
      `{ viewer { id } repository(owner: "${OWNER}", name: "${REPO}") { issue(number: 3) { id } label(name: "ready-for-agent") { id } inProgress: label(name: "bug") { id } } }`,
    );
    const issueId = ids.repository.issue.id;
    const r = await gql<{ a: { commentEdge: { node: { fullDatabaseId: string; body: string } } }; e: { issueComment: { body: string } } }>(
      `mutation($issue: ID!, $me: ID!, $ready: ID!, $bug: ID!) {
        r: removeLabelsFromLabelable(input: {labelableId: $issue, labelIds: [$ready]}) { clientMutationId }
        l: addLabelsToLabelable(input: {labelableId: $issue, labelIds: [$bug]}) { clientMutationId }
        s: addAssigneesToAssignable(input: {assignableId: $issue, assigneeIds: [$me]}) { clientMutationId }
        a: addComment(input: {subjectId: $issue, body: "claimed"}) { commentEdge { node { id fullDatabaseId body } } }
      }`,
      { issue: issueId, me: ids.viewer.id, ready: ids.repository.label.id, bug: ids.repository.inProgress.id },
    );
    assert.equal(r.a.commentEdge.node.body, "claimed");
    const commentId = (await w.as("bob").issues.getComment({ ...repo, comment_id: Number(r.a.commentEdge.node.fullDatabaseId) })).data.node_id;
    const edited = await gql<{ e: { issueComment: { body: string } } }>(
      `mutation($id: ID!) { e: updateIssueComment(input: {id: $id, body: "renewed"}) { issueComment { body } } }`,
      { id: commentId },
    );
    assert.equal(edited.e.issueComment.body, "renewed");
    const issue = (await w.as("carol").issues.get({ ...repo, issue_number: 3 })).data;
    assert.deepEqual(
      issue.labels.map((l) => (typeof l === "string" ? l : l.name)),
      ["bug"],
    );
    assert.deepEqual(
      issue.assignees?.map((u) => u.login),
      ["bob"],
    );
    const events = (await w.as("carol").issues.listEvents({ ...repo, issue_number: 3 })).data.map((e) => e.event);
    assert.deepEqual(events, ["labeled", "unlabeled", "labeled", "assigned"]);
    const un = await gql<{ x: { assignable: { assignees: { totalCount: number } } } }>(
      `mutation($i: ID!, $me: ID!) { x: removeAssigneesFromAssignable(input: {assignableId: $i, assigneeIds: [$me]}) { assignable { ... on Issue { assignees(first: 5) { totalCount } } } } }`,
      { i: issueId, me: ids.viewer.id },
    );
    assert.equal(un.x.assignable.assignees.totalCount, 0);
  });

  it("a mutation by a reader is FORBIDDEN; GraphQL without a token is 401", async () => {
    const reader = graphql.defaults({ baseUrl: w.sb.apiUrl, headers: { authorization: `token ${w.tokens.carol}` } });
    const ids = await reader<{ repository: { issue: { id: string }; label: { id: string } } }>(
      `{ repository(owner: "${OWNER}", name: "${REPO}") { issue(number: 1) { id } label(name: "bug") { id } } }`,
    );
    await assert.rejects(
      reader(`mutation($i: ID!, $l: ID!) { addLabelsToLabelable(input: {labelableId: $i, labelIds: [$l]}) { clientMutationId } }`, {
        i: ids.repository.issue.id,
        l: ids.repository.label.id,
      }),
      (e: { errors?: { type?: string }[] }) => e.errors?.[0]?.type === "FORBIDDEN",
    );
    const anon = graphql.defaults({ baseUrl: w.sb.apiUrl });
    await assert.rejects(anon("{ viewer { login } }"), (e: { status?: number }) => e.status === 401);
  });

  it("labeled events are readable through timelineItems with their actor", async () => {
    const r = await gql<{ repository: { issue: { timelineItems: { nodes: { actor: { login: string }; label: { name: string } }[] } } } }>(
      `{ repository(owner: "${OWNER}", name: "${REPO}") { issue(number: 1) { timelineItems(first: 10, itemTypes: [LABELED_EVENT]) { nodes { ... on LabeledEvent { actor { login } label { name } } } } } } }`,
    );
    assert.deepEqual(r.repository.issue.timelineItems.nodes, [{ actor: { login: "bob" }, label: { name: "ready-for-agent" } }]);
  });
});
