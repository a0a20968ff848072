import assert from "node:assert/strict";
import { rateLimitFrom } from "../../../src/adapters/github/rate-limits";

// What Octokit throws for each of GitHub's rate-limit answers (links in src/adapters/github/rate-limits.ts).
describe("GitHub's rate limits, read into one typed error with the reset", () => {
  const now = new Date("2026-12-01T18:00:00Z");
  const reset = String(Date.parse("2026-12-01T18:40:00Z") / 1000);

  it("REST primary: 403 with x-ratelimit-remaining 0 resets at x-ratelimit-reset", () => {
    const e = rateLimitFrom(
      { status: 403, message: "API rate limit exceeded for user ID 1.", response: { headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset } } },
      "/repos/{owner}/{repo}",
      now,
    );
    assert.equal(e?.reason, "rate-limited");
    assert.deepEqual([e?.limit, e?.api, e?.resetAt.toISOString()], ["primary", "rest", "2026-12-01T18:40:00.000Z"]);
    assert.match(e?.message ?? "", /GitHub's REST rate limit for this token is spent; it resets 2026-12-01 18:40 UTC/);
  });

  it("GraphQL primary: 200 with errors[].type RATE_LIMITED (as plugin-throttling rethrows it)", () => {
    const e = rateLimitFrom(
      {
        message: "GraphQL Rate Limit Exceeded",
        data: { errors: [{ type: "RATE_LIMITED", message: "API rate limit already exceeded for user ID 1." }] },
        response: { headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset } },
      },
      "/graphql",
      now,
    );
    assert.deepEqual([e?.limit, e?.api, e?.resetAt.toISOString()], ["primary", "graphql", "2026-12-01T18:40:00.000Z"]);
  });

  it("secondary: 403 or 200 with GitHub's words, retry-after when given, else a minute", () => {
    const words = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.";
    const forbidden = rateLimitFrom({ status: 403, message: words, response: { headers: { "retry-after": "30" } } }, "/graphql", now);
    assert.deepEqual([forbidden?.limit, forbidden?.resetAt.toISOString()], ["secondary", "2026-12-01T18:00:30.000Z"]);
    const ok200 = rateLimitFrom({ message: words, data: { errors: [{ message: words }] }, response: { headers: {} } }, "/graphql", now);
    assert.deepEqual([ok200?.limit, ok200?.resetAt.toISOString()], ["secondary", "2026-12-01T18:01:00.000Z"]);
    const tooMany = rateLimitFrom(
      { status: 429, message: "Too Many Requests", response: { headers: { "retry-after": "5" } } },
      "/repos/{owner}/{repo}/issues",
      now,
    );
    assert.deepEqual([tooMany?.limit, tooMany?.api], ["secondary", "rest"]);
  });

  it("a 403 that is no limit, a 404 and a network error are not limits", () => {
    assert.equal(
      rateLimitFrom(
        { status: 403, message: "Resource not accessible by integration", response: { headers: { "x-ratelimit-remaining": "4999" } } },
        "/repos/a/b",
        now,
      ),
      null,
    );
    assert.equal(rateLimitFrom({ status: 404, message: "Not Found", response: { headers: {} } }, "/repos/a/b", now), null);
    assert.equal(rateLimitFrom(new Error("socket hang up"), "/graphql", now), null);
  });
});
