/**
 * A spent GraphQL budget, in GitHub's shape: HTTP 200, errors[].type RATE_LIMITED,
 * x-ratelimit-remaining 0 and the reset time. The sandbox answers so; the board must say it is a
 * rate limit and when it resets, never "could not reach the API".
 */
import { strict as assert } from "node:assert";
import { createOctokit } from "../../../src/adapters/github/client";
import { BoardSourceError } from "../../../src/core/board/source-error";
import { useSeededBoard } from "../../support/seeded-board";

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe("board: GitHub's GraphQL rate limit (200 with RATE_LIMITED)", function () {
  this.timeout(60_000);
  const fx = useSeededBoard(quiet);

  it("the sandbox answers as GitHub does, and the board reports a rate limit with its reset time", async () => {
    const octokit = createOctokit({ apiUrl: fx.sandbox.apiUrl, token: fx.seeded.tokens.ana!, log: quiet, retries: 0 });
    await fx.sandbox.admin.setFaults({ rateLimit: 1 });
    await octokit.graphql("{ viewer { login } }");
    const raw = await fetch(`${fx.sandbox.apiUrl}/graphql`, {
      method: "POST",
      headers: { authorization: `token ${fx.seeded.tokens.ana}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ viewer { login } }" }),
    });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get("x-ratelimit-remaining"), "0");
    const reset = Number(raw.headers.get("x-ratelimit-reset"));
    assert.ok(reset * 1000 > Date.now());
    assert.deepEqual(
      ((await raw.json()) as { errors: { type: string }[] }).errors.map((e) => e.type),
      ["RATE_LIMITED"],
    );

    const board = fx.board({ octokit, runRoot: { list: async () => [] } });
    const error = await board.loader.load().then(
      () => assert.fail("the load should be refused"),
      (e: unknown) => e,
    );
    await fx.sandbox.admin.setFaults({});
    assert.ok(error instanceof BoardSourceError, String(error));
    assert.equal(error.reason, "rate-limited", error.message);
    assert.equal(error.details.retryAt?.getTime(), reset * 1000);
    assert.match(error.message, /GraphQL rate limit is spent .* resets at /);
  });
});
