/**
 * The Octokit client's retry rules, against the sandbox's injected faults and its request log:
 * safe requests (GET, GraphQL queries) are retried on 5xx; a POST that creates something (a
 * comment, a GraphQL mutation) is sent exactly once; a secondary rate limit is waited out
 * (retry-after) and the write then lands once.
 */
import assert from "node:assert/strict";
import { createOctokit } from "../../../src/adapters/github/client";
import { waitFor } from "../../support/wait-for";
import { NAME, OWNER, useClaimsSandbox } from "./claims-sandbox";

describe("claims (integration): the Octokit client's retries", function () {
  this.timeout(60_000);
  const s = useClaimsSandbox({ clearFaults: true });

  const count = async (re: RegExp) => (await s.sandbox.admin.requestLog()).filter((r) => re.test(`${r.method} ${r.path}`)).length;

  it("retries a GET and a GraphQL query on 5xx, but never re-sends a comment POST or a mutation", async () => {
    const n = await s.issue("faults");
    const gh = s.client("alice");
    await s.sandbox.admin.clearRequestLog();
    await s.sandbox.admin.setFaults({
      errorRate: 1,
      errorStatus: 502,
      errorRoutes: "^(GET /repos/acme/widgets$|POST /graphql|POST /repos/acme/widgets/issues/\\d+/comments)",
    });

    await assert.rejects(gh.request("GET /repos/{owner}/{repo}", { owner: OWNER, repo: NAME }));
    assert.equal(await count(/^GET \/repos\/acme\/widgets$/), 4, "GET: first try + 3 retries");

    await assert.rejects(gh.graphql("query { viewer { login } }"));
    const queries = await count(/^POST \/graphql/);
    assert.equal(queries, 4, "a GraphQL query is a read: retried");

    await assert.rejects(gh.graphql(`mutation($id: ID!) { addComment(input: { subjectId: $id, body: "x" }) { clientMutationId } }`, { id: "I_x" }));
    assert.equal(await count(/^POST \/graphql/), queries + 1, "a mutation is sent once");

    await assert.rejects(gh.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: OWNER, repo: NAME, issue_number: n, body: "once" }));
    assert.equal(await count(/^POST \/repos\/acme\/widgets\/issues\/\d+\/comments/), 1, "a comment POST is sent once");
  });

  it("waits out a secondary rate limit (retry-after) and the comment lands exactly once", async () => {
    const n = await s.issue("limits");
    const gh = createOctokit({ apiUrl: s.sandbox.apiUrl, token: s.tokens.alice!, log: s.log, retryBaseMs: 20 });
    await s.sandbox.admin.setFaults({ secondaryRateLimit: { writesPerMinute: 1, status: 403, retryAfterSeconds: 1 } });
    await gh.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: OWNER, repo: NAME, issue_number: n, body: "first" });
    await s.sandbox.admin.clearRequestLog();
    const second = gh.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: OWNER, repo: NAME, issue_number: n, body: "second" });
    // Once GitHub has said "secondary rate limit", lift it while the client waits its retry-after.
    await waitFor(async () => (await s.sandbox.admin.requestLog()).some((r) => r.status === 403), { what: "a secondary limit" });
    await s.sandbox.admin.setFaults({});
    await second;
    const comments = await s.tracker("alice").listComments(n);
    assert.deepEqual(
      comments.map((c) => c.body),
      ["first", "second"],
    );
    assert.ok(s.log.has("secondary rate limit; retrying"), "the wait is logged");
  });

  it("a Run's start reads the repository once: its access, then the default branch and merge methods from the same answer (ADR 0440)", async () => {
    const tracker = s.tracker("alice");
    await s.sandbox.admin.clearRequestLog();
    assert.equal(await tracker.access(), "write");
    assert.equal(await tracker.defaultBranch(), "main");
    assert.notEqual(await tracker.mergeMethods(), null);
    assert.equal(await count(/^GET \/repos\/acme\/widgets$/), 1, "one GET of the repository");
    // access() never answers from an older read: a later check asks GitHub again.
    assert.equal(await tracker.access(), "write");
    assert.equal(await count(/^GET \/repos\/acme\/widgets$/), 2);
  });
});
