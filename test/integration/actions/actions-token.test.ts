/**
 * A Run handed GitHub Actions' own GITHUB_TOKEN refuses before it claims anything (ADR 0281): what
 * that token pushes starts no workflow, so its pull requests would wait for CI that never comes.
 * The sandbox plays the token as GitHub does: the user `github-actions[bot]`, which may not read
 * GET /user (403 "Resource not accessible by integration") and is named by GraphQL's viewer.
 */
import { strict as assert } from "node:assert";
import { checkLock, viewTickets } from "../../reliability/chaos/observe";
import { startRun } from "../../reliability/chaos/run-process";
import { ChaosWorld } from "../../reliability/chaos/world";

describe("a Run with the Actions GITHUB_TOKEN", function () {
  this.timeout(120_000);
  let world: ChaosWorld | null = null;
  after(async () => world?.stop());

  it("refuses up front, naming the App token or PAT to set, and touches no ticket", async () => {
    world = await ChaosWorld.start("tr-actions-token-");
    const t = await world.target({ name: "bot-token", config: { lockScope: "host" } });
    const { token } = await world.sandbox.admin.addUser({ login: "github-actions[bot]", repos: { [t.full]: "write" } });
    const host = await world.host(t, "actions-host-1", { TICKET_RUNNER_TOKEN: token, GITHUB_ACTIONS: "true" });
    const before = await viewTickets(world, t);

    const run = startRun(host.clone, host.env, []);
    const exit = await run.exited;
    const said = `${run.stdout()}\n${run.stderr()}`;
    assert.equal(exit.code, 2, said);
    assert.match(said, /acts as github-actions\[bot\]/);
    assert.match(said, /GitHub App installation token/);
    assert.match(said, /TICKET_RUNNER_APP_PRIVATE_KEY/);
    assert.ok(!said.includes(token), "the token itself is never printed");
    assert.deepEqual(await viewTickets(world, t), before, "no label, assignee or comment changed");
    assert.deepEqual(await checkLock(t), []);
  });
});
