// Fault injection: each fault kind, seen by the real Octokit client. Also the request log.
import { strict as assert } from "node:assert";
import { waitFor } from "../../support/wait-for";
import { closeWorld, errorOf, makeWorld, OWNER, REPO } from "./support";
import type { World } from "./support";

const repo = { owner: OWNER, repo: REPO };

describe("sandbox faults and request log", function () {
  let w: World;
  before(async () => {
    w = await makeWorld();
  });
  afterEach(async () => w.sb.admin.setFaults({}));
  after(async () => closeWorld(w));

  it("latency: a client with a shorter timeout than the injected latency times out", async () => {
    await w.sb.admin.setFaults({ latencyMs: 3000, jitterMs: 100 });
    await assert.rejects(w.as("bob").users.getAuthenticated({ request: { signal: AbortSignal.timeout(100) } }));
  });

  it("error rate on a route regex: only matching routes fail with 5xx", async () => {
    await w.sb.admin.setFaults({ errorRate: 1, errorRoutes: "^GET /repos/[^/]+/[^/]+/issues$" });
    const e = await errorOf(w.as("bob").issues.listForRepo(repo));
    assert.ok(e.status >= 500 && e.status < 600, `status ${e.status}`);
    assert.equal((await w.as("bob").repos.get(repo)).status, 200);
  });

  it("secondary rate limit: after K writes a minute, 429 with retry-after (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits)", async () => {
    await w.sb.admin.setFaults({ secondaryRateLimit: { writesPerMinute: 2, status: 429, retryAfterSeconds: 7 } });
    await w.as("bob").issues.create({ ...repo, title: "w1" });
    await w.as("bob").issues.create({ ...repo, title: "w2" });
    const e = await errorOf(w.as("bob").issues.create({ ...repo, title: "w3" }));
    assert.equal(e.status, 429);
    assert.match(e.message, /secondary rate limit/);
    const res = await fetch(`${w.sb.apiUrl}/repos/${OWNER}/${REPO}/issues`, {
      method: "POST",
      headers: { authorization: `token ${w.tokens.bob}` },
      body: JSON.stringify({ title: "w4" }),
    });
    assert.equal(res.headers.get("retry-after"), "7");
    // Reads are not writes.
    assert.equal((await w.as("bob").issues.listForRepo(repo)).status, 200);
  });

  it("holdWrites: one user's matching writes wait until released, and land with the sandbox clock of their release", async () => {
    const issue = (await w.as("bob").issues.create({ ...repo, title: "held" })).data.number;
    await w.sb.admin.setFaults({ holdWrites: { user: "bob", routes: "^POST /repos/[^/]+/[^/]+/issues/\\d+/comments$" } });
    let landed = false;
    const posting = w
      .as("bob")
      .issues.createComment({ ...repo, issue_number: issue, body: "late" })
      .then((r) => ((landed = true), r));
    await waitFor(async () => (await w.sb.admin.heldWrites()) === 1, { what: "the comment to be held" });
    // Reads, other routes and other users pass.
    assert.equal((await w.as("bob").issues.get({ ...repo, issue_number: issue })).status, 200);
    await w.as("bob").issues.update({ ...repo, issue_number: issue, title: "held still" });
    assert.equal(landed, false);
    assert.equal((await w.as("bob").issues.listComments({ ...repo, issue_number: issue })).data.length, 0, "nothing applied while held");
    const before = Date.now();
    await w.sb.admin.setClock(60_000);
    assert.equal(await w.sb.admin.releaseHeld(), 1);
    const created = Date.parse((await posting).data.created_at);
    assert.ok(created >= Math.floor((before + 60_000) / 1000) * 1000, `stamped with the sandbox clock: ${(await posting).data.created_at}`);
  });

  it("secondary rate limit as 403, and GraphQL mutations count as writes", async () => {
    await w.sb.admin.setFaults({ secondaryRateLimit: { writesPerMinute: 1, status: 403, retryAfterSeconds: 1 } });
    await w.as("bob").issues.create({ ...repo, title: "x" });
    await assert.rejects(
      w.as("bob").graphql(`mutation { addComment(input: {subjectId: "I_x", body: "y"}) { clientMutationId } }`),
      (err: { status?: number }) => err.status === 403,
    );
  });

  it("read lag: list endpoints and GraphQL reads serve an older view; single GETs are fresh", async () => {
    await w.sb.admin.setFaults({ readLagMs: 2000 });
    const { data } = await w.as("bob").issues.create({ ...repo, title: "lagged" });
    const list = await w.as("bob").issues.listForRepo({ ...repo, per_page: 100 });
    assert.ok(!list.data.some((i) => i.number === data.number), "a fresh list must not show it yet");
    const gql = await w
      .as("bob")
      .graphql<{ repository: { issues: { nodes: { number: number }[] } } }>(
        `{ repository(owner: "${OWNER}", name: "${REPO}") { issues(last: 100) { nodes { number } } } }`,
      );
    assert.ok(!gql.repository.issues.nodes.some((i) => i.number === data.number));
    assert.equal((await w.as("bob").issues.get({ ...repo, issue_number: data.number })).data.title, "lagged");
    await waitFor(async () => (await w.as("bob").issues.listForRepo({ ...repo, per_page: 100 })).data.some((i) => i.number === data.number), {
      what: "the lagged list to catch up",
    });
  });

  it("dropped connections: the client sees the socket close", async () => {
    await w.sb.admin.setFaults({ dropRate: 1 });
    await assert.rejects(fetch(`${w.sb.apiUrl}/user`, { headers: { authorization: `token ${w.tokens.bob}` } }));
    await w.sb.admin.setFaults({});
    assert.equal((await w.as("bob").users.getAuthenticated()).status, 200);
  });

  it("primary rate limit: x-ratelimit-* headers, GET /rate_limit, and 403 with remaining 0 when spent", async () => {
    await w.sb.admin.setFaults({ rateLimit: 100_000 });
    const r = await w.as("carol").repos.get(repo);
    assert.equal(r.headers["x-ratelimit-limit"], "100000");
    assert.equal(r.headers["x-ratelimit-resource"], "core");
    const used = Number(r.headers["x-ratelimit-used"]);
    await w.sb.admin.setFaults({ rateLimit: used + 1 });
    await w.as("carol").repos.get(repo);
    const e = await errorOf(w.as("carol").repos.get(repo));
    assert.equal(e.status, 403);
    assert.match(e.message, /rate limit exceeded/);
    const status = await w.as("carol").rateLimit.get();
    assert.equal(status.data.resources.core.remaining, 0);
  });

  it("request log: tests can assert exactly which requests were made", async () => {
    await w.sb.admin.clearRequestLog();
    await w.as("carol").issues.get({ ...repo, issue_number: 1 });
    await w.as("dave").issues.createComment({ ...repo, issue_number: 1, body: "hi" });
    const log = await w.sb.admin.requestLog();
    assert.deepEqual(
      log.map((l) => [l.method, l.path, l.status, l.user]),
      [
        ["GET", `/repos/${OWNER}/${REPO}/issues/1`, 200, "carol"],
        ["POST", `/repos/${OWNER}/${REPO}/issues/1/comments`, 201, "dave"],
      ],
    );
  });
});
