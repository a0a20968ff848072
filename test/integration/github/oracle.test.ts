/**
 * GitHub's own descriptions as the oracle (test/support/github-reference.ts, openapi-reference.ts).
 * The product's real GitHub adapters (the tracker every front door and the Run use, and the board)
 * are driven through every call they make, against the sandbox over HTTP, with the product's own
 * Octokit client. A hook on that client records:
 * - every GraphQL document and its variables, each validated against GitHub's schema (fields,
 *   arguments, variable types and values, deprecations, node limits);
 * - every REST answer, its status and body validated against the operation's response schema in
 *   GitHub's OpenAPI description, error answers (401, 403, 404, 409, 422) and 304s included.
 * Then it checks that every REST route and GraphQL call site in src/adapters/github was exercised.
 * What a separate `ticket-runner run` process sends is checked by oracle-cli-run.test.ts.
 */
import { strict as assert } from "node:assert";
import { createOctokit, type GitHubClient } from "../../../src/adapters/github/client";
import { createGitHubBoard } from "../../../src/adapters/github/board-wiring";
import { OctokitTracker } from "../../../src/adapters/github/octokit-tracker";
import { NodeClock } from "../../../src/adapters/node-clock";
import { NodeHost } from "../../../src/adapters/node-host";
import { graphqlProblems, restProblems, routesInSource, templateOf, type Seen } from "../../support/oracle-record";
import { closeWorld, cloneAs, commitFile, gitOk, makeWorld, OWNER, REPO, type World } from "../sandbox/support";

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The product's client, with a hook that records what it sends and what comes back. */
function recordingClient(apiUrl: string, token: string, seen: Seen): GitHubClient {
  const octokit = createOctokit({ apiUrl, token, log: quiet, retries: 0 });
  octokit.hook.wrap("request", async (request, options) => {
    const {
      method,
      url,
      query,
      headers: _h,
      request: _r,
      baseUrl: _b,
      mediaType: _m,
      ...rest
    } = options as unknown as Record<string, unknown> & { method: string; url: string; query?: string };
    if (url === "/graphql" && typeof query === "string") seen.graphql.push({ query, variables: (rest.variables ?? {}) as Record<string, unknown> });
    const route = templateOf(method, url);
    try {
      const res = await request(options);
      if (url !== "/graphql") seen.rest.push({ route, status: res.status, body: res.data, headers: res.headers });
      return res;
    } catch (e) {
      const err = e as { status?: number; response?: { data?: unknown; headers?: Record<string, unknown> } };
      if (url !== "/graphql" && typeof err.status === "number")
        seen.rest.push({ route, status: err.status, body: err.response?.data, headers: err.response?.headers ?? {} });
      throw e;
    }
  });
  return octokit;
}

describe("GitHub's descriptions as the oracle: every request the GitHub adapters make", function () {
  this.timeout(120_000);
  let w: World;
  const seen: Seen = { graphql: [], rest: [] };
  const repo = { owner: OWNER, repo: REPO };

  before(async () => {
    w = await makeWorld();
    const bob = recordingClient(w.sb.apiUrl, w.tokens.bob!, seen);
    const tracker = new OctokitTracker(bob, repo);
    const admin = w.as("alice");

    // Issues, labels, comments, a blocker, a long thread (over one page of comments).
    const blocker = (await admin.issues.create({ ...repo, title: "blocker" })).data;
    const n = (await admin.issues.create({ ...repo, title: "ticket", labels: ["ready-for-agent"] })).data.number;
    await admin.request("POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", { ...repo, issue_number: n, issue_id: blocker.id });
    for (let i = 0; i < 105; i++) await admin.issues.createComment({ ...repo, issue_number: n, body: `c${i}` });

    await tracker.viewer();
    await tracker.defaultBranch();
    await tracker.permissionOf("bob");
    await tracker.permissionOf("nobody-here");
    await tracker.getIssue(n);
    await tracker.getIssue(9999);
    await tracker.listOpenIssues(["ready-for-agent"]);
    await tracker.listComments(n);
    await tracker.labelActors(n, "ready-for-agent");
    await tracker.openBlockers(n);
    // The claim write without a thread read first: every node id lookup.
    const fresh = new OctokitTracker(recordingClient(w.sb.apiUrl, w.tokens.bob!, seen), repo);
    const lease = await fresh.writeIssue(n, {
      addLabels: ["in-progress", "claim:new-label"],
      removeLabels: ["ready-for-agent"],
      addAssignees: ["bob"],
      comment: { body: "lease" },
    });
    assert.ok(lease);
    const other = await tracker.createComment(n, "progress");
    await fresh.writeIssue(n, {
      comment: { id: lease.id, body: "lease, renewed" },
      editComments: [{ id: other.id, body: "superseded" }],
      removeAssignees: ["bob"],
    });
    // The claim write whose answer is the read-back (ADR 0380), through each payload that returns the
    // issue: addComment's subject, updateIssueComment's issue, the label and assignee payloads. The
    // thread is longer than a page, so its older comments are read too.
    const back = await fresh.writeIssueReadBack(n, { addLabels: ["in-progress"], addAssignees: ["bob"], comment: { body: "lease, read back" } });
    const all = await tracker.listComments(n);
    assert.ok(all.length > 100);
    assert.deepEqual(
      back.thread.comments.map((c) => c.id),
      all.map((c) => c.id),
      "the answer carries every comment, the one just written included, ids exact",
    );
    assert.equal(back.thread.comments.at(-1)?.id, back.comment?.id);
    assert.ok(back.thread.issue.labels.includes("in-progress") && back.thread.issue.assignees.includes("bob"), "the answer shows the write applied");
    const edited = await fresh.writeIssueReadBack(n, {
      comment: { id: back.comment!.id, body: "lease, rewritten" },
      editComments: [{ id: other.id, body: "superseded again" }],
    });
    assert.equal(edited.thread.comments.find((c) => c.id === other.id)?.body, "superseded again");
    assert.ok(!(await fresh.writeIssueReadBack(n, { removeLabels: ["in-progress"] })).thread.issue.labels.includes("in-progress"));
    assert.ok(!(await fresh.writeIssueReadBack(n, { removeAssignees: ["bob"] })).thread.issue.assignees.includes("bob"));
    await tracker.readIssueThread(n);
    await tracker.readIssueThread(9999);
    await tracker.updateComment(other.id, "progress, edited");
    await tracker.ensureLabel("fresh", "#aabbcc", "new");
    await tracker.ensureLabel("fresh", "#aabbcc", "new");
    await tracker.setIssueBody(n, "body");
    // The claim write reads a label by name only when creating it raced another creator (a 422);
    // its answer is checked here directly.
    await bob.request("GET /repos/{owner}/{repo}/labels/{name}", { ...repo, name: "fresh" });

    // A branch, its pull request, CI, draft toggles, a refused and a real merge.
    const dir = await cloneAs(w, "bob");
    await gitOk(["checkout", "--quiet", "-b", "agent/1-x"], dir);
    const sha = await commitFile(dir, "x.txt", "x\n", "add x");
    await gitOk(["push", "--quiet", "origin", "agent/1-x"], dir);
    assert.equal(await tracker.findPullRequest("agent/1-x"), null);
    const pr = await tracker.createPullRequest({ head: "agent/1-x", base: "main", title: "x", body: "Closes #1", draft: true });
    await tracker.findPullRequest("agent/1-x");
    await tracker.getPullRequest(pr.number);
    await tracker.getPullRequest(9999);
    await tracker.updatePullRequest(pr.number, { body: "Closes #1." });
    await tracker.setDraft(pr.number, false);
    await tracker.setDraft(pr.number, true);
    await tracker.setDraft(pr.number, false);
    await tracker.ciReport(sha);
    await tracker.mergePullRequest(pr.number, { sha: "0".repeat(40), method: "merge" });
    await tracker.mergePullRequest(pr.number, { sha, method: "squash" });
    await tracker.closeIssue(n);

    // The board: a full load (one page, a long thread's extra comments), then polls (200, then 304).
    const host = new NodeHost({ env: { ...process.env, TICKET_RUNNER_HOST_NAME: "desk" } });
    const board = createGitHubBoard({
      octokit: bob,
      repo,
      host,
      runRoot: { list: async () => [] },
      labels: { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" },
      clock: new NodeClock(),
      log: quiet,
      lastComments: 5,
    });
    await admin.issues.create({ ...repo, title: "long", labels: ["ready-for-agent"] });
    await board.loader.load();
    await board.source.poll();
    await board.source.poll();

    // GitHub's secondary rate limit, as 403 and as 429, each with retry-after (the client gives up after its retries).
    for (const status of [403, 429] as const) {
      await w.sb.admin.setFaults({ secondaryRateLimit: { writesPerMinute: 0, status, retryAfterSeconds: 0 } });
      // A plain client: the product's own would wait the limit out and send again.
      const route = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments";
      const e = await w
        .as("bob")
        .request(route, { ...repo, issue_number: n, body: "limited" })
        .then(
          () => assert.fail("not limited"),
          (x: { status: number; response: { data: unknown; headers: Record<string, unknown> } }) => x,
        );
      seen.rest.push({ route, status: e.status, body: e.response.data, headers: e.response.headers });
    }
    await w.sb.admin.setFaults({});

    // A refused token: 401.
    await new OctokitTracker(recordingClient(w.sb.apiUrl, "not-a-token", seen), repo).viewer().catch(() => undefined);
  });
  after(async () => closeWorld(w));

  it("every GraphQL document is valid on GitHub's schema, with its variables, no deprecated field, and within the node limits", () => {
    assert.ok(seen.graphql.length >= 8, `documents seen: ${seen.graphql.length}`);
    assert.deepEqual(graphqlProblems(seen), []);
  });

  it("every REST answer matches the operation's documented status and response schema", () => {
    assert.deepEqual(restProblems(seen), []);
  });

  it("the error answers and 304s were among them", () => {
    const statuses = new Set(seen.rest.map((r) => r.status));
    for (const s of [200, 201, 304, 401, 403, 404, 409, 422, 429]) assert.ok(statuses.has(s), `no ${s} answer was checked: ${[...statuses].join(", ")}`);
    // GitHub's documented headers on a rate-limited answer: retry-after, or x-ratelimit-remaining 0 with x-ratelimit-reset
    // (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit).
    for (const r of seen.rest.filter((x) => x.status === 403 || x.status === 429)) {
      const h = r.headers;
      assert.ok(
        h["retry-after"] !== undefined || (h["x-ratelimit-remaining"] === "0" && h["x-ratelimit-reset"] !== undefined),
        `${r.route} ${r.status} without rate-limit headers`,
      );
    }
  });

  it("every REST route the adapters name was exercised", () => {
    const exercised = new Set(seen.rest.map((r) => r.route));
    const missing = [...routesInSource()].filter((r) => !exercised.has(r));
    assert.deepEqual(missing, []);
  });
});
