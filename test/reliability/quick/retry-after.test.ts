/**
 * The product's GitHub client (createOctokit) against the sandbox's rate limits, one request at a
 * time so the sandbox's request log shows every attempt of it in order. Expected:
 *   - a secondary limit (403 or 429 with retry-after) is waited out: each re-send comes no sooner
 *     than retry-after, a bounded number of times, then a clear error;
 *   - a refused write never lands, so a retried comment is never posted twice;
 *   - a primary limit whose reset is further off than the client will wait is not waited for.
 */
import { strict as assert } from "node:assert";
import { createOctokit } from "../../../src/adapters/github/client";
import { GitHubRateLimit } from "../../../src/core/errors";
import { CollectLog, FULL, NAME, OWNER, useClaimsSandbox } from "../../integration/claims/claims-sandbox";
import { record } from "../support/figures";

const seconds = (at: string): number => Math.floor(Date.parse(at) / 1000);

describe("reliability: waits follow retry-after", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write" }, clearFaults: true });

  for (const status of [403, 429] as const) {
    it(`a secondary limit (${status}, retry-after 2): re-sent only after 2 s each time, then a clear error; the comment is never doubled`, async () => {
      const n = await s.issue(`retry-after ${status}`);
      const log = new CollectLog();
      const gh = createOctokit({ apiUrl: s.sandbox.apiUrl, token: s.tokens.alice!, log });
      await s.sandbox.admin.setFaults({ secondaryRateLimit: { writesPerMinute: 1, status, retryAfterSeconds: 2 } });
      await s.sandbox.admin.clearRequestLog();
      await gh.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: OWNER, repo: NAME, issue_number: n, body: "first" });
      const second = await gh
        .request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: OWNER, repo: NAME, issue_number: n, body: "second" })
        .then(
          () => null,
          (e: unknown) => e,
        );
      await s.sandbox.admin.setFaults({});
      assert.ok(second, "the limited write should fail in the end, not hang");
      // Since ADR 0240 every shape of GitHub's limits reaches callers as one typed error; GitHub's own answer is its cause.
      assert.ok(second instanceof GitHubRateLimit, `expected GitHubRateLimit, got ${String(second)}`);
      assert.equal(second.limit, "secondary");
      assert.equal((second.cause as { status?: number } | undefined)?.status, status);
      assert.match(second.message, /secondary rate limit/);
      const attempts = (await s.sandbox.admin.requestLog()).filter((r) => r.method === "POST" && r.path === `/repos/${FULL}/issues/${n}/comments`);
      assert.deepEqual(
        attempts.map((a) => a.status),
        [201, status, status, status],
        "one success, then the limited write and its two re-sends",
      );
      for (let i = 2; i < attempts.length; i++) {
        const waited = seconds(attempts[i]!.at) - seconds(attempts[i - 1]!.at);
        assert.ok(waited >= 2, `re-send ${i - 1} came ${waited} s after a retry-after of 2 s`);
      }
      assert.ok(log.has("retrying after 2s") && log.has("giving up"), log.lines.join("\n"));
      const bodies = (await s.tracker("alice").listComments(n)).map((c) => c.body);
      assert.deepEqual(bodies, ["first"], "a refused write never lands, and is never doubled");
      record("faults.retry-after", {
        what: "a secondary rate limit is waited out per retry-after, bounded, and never doubles a write",
        test: "test/reliability/quick/retry-after.test.ts",
        trials: 1,
        faults: 3,
        losses: 0,
      });
    });
  }

  it("a primary limit that resets in an hour is not waited for: a clear error at once", async () => {
    const n = await s.issue("primary limit");
    const log = new CollectLog();
    const gh = createOctokit({ apiUrl: s.sandbox.apiUrl, token: s.tokens.alice!, log, maxRateLimitWaitSeconds: 120 });
    await s.sandbox.admin.setFaults({ rateLimit: 1 });
    const err = await gh
      .request("GET /repos/{owner}/{repo}/issues/{issue_number}", { owner: OWNER, repo: NAME, issue_number: n })
      .then(() => gh.request("GET /repos/{owner}/{repo}/issues/{issue_number}", { owner: OWNER, repo: NAME, issue_number: n }))
      .then(
        () => null,
        (e: unknown) => e,
      );
    await s.sandbox.admin.setFaults({});
    assert.ok(err instanceof GitHubRateLimit, `expected GitHubRateLimit, got ${String(err)}`);
    assert.equal(err.limit, "primary");
    assert.equal((err.cause as { status?: number } | undefined)?.status, 403);
    // Not waited for: the error names a reset past the client's 120 s bound, and the client said it gave up.
    assert.ok(err.resetAt.getTime() - Date.now() > 120_000, `reset ${err.resetAt.toISOString()} is within the wait bound`);
    assert.ok(log.has("primary rate limit; giving up"), log.lines.join("\n"));
  });
});
