/**
 * A spent GraphQL budget, in GitHub's shape: HTTP 200, errors[].type RATE_LIMITED,
 * x-ratelimit-remaining 0 and the reset time. The sandbox answers so; the board must say it is a
 * rate limit and when it resets, never "could not reach the API".
 */
import { strict as assert } from "node:assert";
import { rmSync } from "node:fs";
import { createGitHubBoard } from "../../../src/adapters/github/board-wiring";
import { createOctokit } from "../../../src/adapters/github/client";
import { NodeClock } from "../../../src/adapters/node-clock";
import { NodeHost } from "../../../src/adapters/node-host";
import { BoardSourceError } from "../../../src/core/board/source-error";
import { startSandbox, type SandboxHandle } from "../../../src/sandbox/start";
import { seedBoard, type SeededBoard } from "../../support/board-seed";

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe("board: GitHub's GraphQL rate limit (200 with RATE_LIMITED)", function () {
  this.timeout(60_000);
  let sandbox: SandboxHandle;
  let seeded: SeededBoard;
  const host = new NodeHost({ env: { ...process.env, TICKET_RUNNER_HOST_NAME: "desk" } });

  before(async () => {
    sandbox = await startSandbox({ quiet: true });
    seeded = await seedBoard(sandbox, host.identity());
  });
  after(async () => {
    await sandbox?.stop();
    if (seeded) rmSync(seeded.runRoot, { recursive: true, force: true });
  });

  it("the sandbox answers as GitHub does, and the board reports a rate limit with its reset time", async () => {
    const octokit = createOctokit({ apiUrl: sandbox.apiUrl, token: seeded.tokens.ana!, log: quiet, retries: 0 });
    await sandbox.admin.setFaults({ rateLimit: 1 });
    await octokit.graphql("{ viewer { login } }");
    const raw = await fetch(`${sandbox.apiUrl}/graphql`, { method: "POST", headers: { authorization: `token ${seeded.tokens.ana}`, "content-type": "application/json" }, body: JSON.stringify({ query: "{ viewer { login } }" }) });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get("x-ratelimit-remaining"), "0");
    const reset = Number(raw.headers.get("x-ratelimit-reset"));
    assert.ok(reset * 1000 > Date.now());
    assert.deepEqual(((await raw.json()) as { errors: { type: string }[] }).errors.map((e) => e.type), ["RATE_LIMITED"]);

    const board = createGitHubBoard({ octokit, repo: seeded.repo, host, runRoot: { list: async () => [] }, labels: { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" }, clock: new NodeClock(), log: quiet });
    const error = await board.loader.load().then(
      () => assert.fail("the load should be refused"),
      (e: unknown) => e,
    );
    await sandbox.admin.setFaults({});
    assert.ok(error instanceof BoardSourceError, String(error));
    assert.equal(error.reason, "rate-limited", error.message);
    assert.equal(error.details.retryAt?.getTime(), reset * 1000);
    assert.match(error.message, /GraphQL rate limit is spent .* resets at /);
  });
});
