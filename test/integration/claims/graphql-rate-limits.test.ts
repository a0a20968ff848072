/**
 * A claim meets GitHub's rate limits in GitHub's own shapes, over real HTTP with the real Octokit
 * (ADR 0240). Each shape follows GitHub's "Rate limits and query limits for the GraphQL API":
 * - #exceeding-the-rate-limit: HTTP 200, errors[].type RATE_LIMITED, x-ratelimit-remaining 0;
 * - #exceeding-the-secondary-rate-limit: "a 200 or 403 response and an error message that
 *   indicates that you hit a secondary rate limit", with retry-after.
 * A limit the client may wait out is waited out and the claim lands once; a longer one refuses the
 * claim naming the reset time, with nothing claimed.
 */
import assert from "node:assert/strict";
import { isRefusal, type Refusal } from "../../../src/core/errors";
import { waitFor } from "../../support/wait-for";
import { LABELS, useClaimsSandbox } from "./claims-sandbox";

describe("claims (integration): GitHub's GraphQL rate limits in GitHub's shapes", function () {
  this.timeout(60_000);
  const s = useClaimsSandbox({ clearFaults: true });

  async function refusal(p: Promise<unknown>): Promise<Refusal> {
    const error = await p.then(
      () => assert.fail("the claim should be refused"),
      (e: unknown) => e,
    );
    assert.ok(isRefusal(error), `a Refusal, not: ${String(error)}`);
    return error;
  }

  async function untouched(n: number): Promise<void> {
    const issue = await s.tracker("bob").getIssue(n);
    assert.deepEqual(issue?.labels, [LABELS.ready], "nothing was claimed");
    assert.deepEqual(await s.tracker("bob").listComments(n), [], "no lease was written");
  }

  it("a spent GraphQL budget (200 + RATE_LIMITED) refuses the claim, naming the reset GitHub sent", async () => {
    const n = await s.issue("primary graphql");
    await s.sandbox.admin.setFaults({ spentBudget: { users: ["alice"], resources: ["graphql"], resetInSeconds: 3600 } });
    const raw = await fetch(`${s.sandbox.apiUrl}/graphql`, {
      method: "POST",
      headers: { authorization: `token ${s.tokens.alice}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ viewer { login } }" }),
    });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get("x-ratelimit-remaining"), "0");
    const reset = new Date(Number(raw.headers.get("x-ratelimit-reset")) * 1000);

    const { gate } = s.claimer({ user: "alice", host: "h1", holder: "person" });
    const r = await refusal(gate.take(n));
    assert.equal(r.reason, "rate-limited", r.message);
    assert.equal(r.details.retryAt, reset.toISOString());
    assert.match(
      r.message,
      /^Nothing was claimed on acme\/widgets#\d+: GitHub's GraphQL rate limit for this token is spent; it resets \d{4}-\d\d-\d\d \d\d:\d\d UTC\./,
    );
    assert.ok(r.message.includes(reset.toISOString().slice(0, 16).replace("T", " ")), r.message);
    await untouched(n);
  });

  it("a secondary limit as 200 with errors (retry-after 1 s) is waited out, and the claim lands once", async () => {
    const n = await s.issue("secondary 200, short");
    // No host label: the claim's only write is then its GraphQL document, the request under test.
    const { gate } = s.claimer({ user: "alice", host: "h2", holder: "person", hostLabels: false });
    await s.sandbox.admin.clearRequestLog();
    await s.sandbox.admin.setFaults({ secondaryRateLimit: { writesPerMinute: 0, status: 403, retryAfterSeconds: 1, graphql: "errors-200" } });
    const taking = gate.take(n);
    // GitHub refused the claim's write (a mutation) with 200 and the words; lift the limit while the client waits.
    await waitFor(async () => (await s.sandbox.admin.requestLog()).some((r) => r.path === "/graphql" && r.write === true && r.status === 200), {
      what: "a refused claim write",
    });
    await s.sandbox.admin.setFaults({});
    const won = await taking;
    assert.equal(won.issue.labels.includes(LABELS.inProgress), true);
    const leases = (await s.tracker("bob").listComments(n)).filter((c) => c.body.includes(won.claim.lease.nonce));
    assert.equal(leases.length, 1, "the lease was written once");
    assert.ok(s.log.has("secondary rate limit; retrying"), "the wait is logged");
  });

  for (const shape of ["errors-200", "status"] as const) {
    it(`a secondary limit as ${shape === "status" ? "403" : "200 with errors"} longer than the client waits refuses the claim, naming when to come back`, async () => {
      const n = await s.issue(`secondary ${shape}, long`);
      const { gate } = s.claimer({ user: "alice", host: `h-${shape}`, holder: "person", hostLabels: false });
      await s.sandbox.admin.setFaults({ secondaryRateLimit: { writesPerMinute: 0, status: 403, retryAfterSeconds: 600, graphql: shape } });
      const before = Date.now();
      const r = await refusal(gate.take(n));
      assert.equal(r.reason, "rate-limited", r.message);
      const at = Date.parse(r.details.retryAt ?? "");
      assert.ok(at >= before + 600_000 && at <= Date.now() + 600_000, `retry-after 600 s from the answer: ${r.details.retryAt}`);
      assert.match(r.message, /GitHub's secondary rate limit for this token is spent; it resets .* UTC/);
      assert.match(r.message, /ticket-runner start \d+/);
      await untouched(n);
    });
  }
});
