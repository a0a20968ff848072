/**
 * `ticket-runner run` meets GitHub's rate limit mid-ticket, in GitHub's shapes (REST 403 with
 * x-ratelimit-remaining 0, GraphQL 200 with RATE_LIMITED; GitHub's "Rate limits for the REST API"
 * #exceeding-the-primary-rate-limit and "Rate limits and query limits for the GraphQL API"
 * #exceeding-the-rate-limit), for longer than the client waits: the ticket is released at the step
 * that met it, the summary names the reset GitHub sent, and the Run takes nothing more (ADR 0240).
 */
import { strict as assert } from "node:assert";
import { RUN_USER } from "../../support/run-seed";
import { waitFor } from "../../support/wait-for";
import { RunWorld } from "./run-helpers";

describe("run (integration): GitHub's rate limit for longer than the client waits", function () {
  this.timeout(180_000);
  let w: RunWorld;
  before(async () => {
    w = await RunWorld.make();
  });
  after(async () => {
    await w?.sandbox.admin.setFaults({});
    await w?.dispose();
  });

  it("releases the ticket in flight naming the reset, and takes no other", async () => {
    const [first, second] = await w.tickets([w.ticket("slow one", ["slow:3000"]), w.ticket("next one")]);
    const run = w.cli(["run"]);
    await waitFor(async () => run.out.some((l) => l.includes(`lane 1: #${first}`)), { what: "the first ticket's Lane", timeoutMs: 60_000 });
    await w.sandbox.admin.setFaults({ spentBudget: { users: [RUN_USER], resources: ["core", "graphql"], resetInSeconds: 3600 } });
    const raw = await fetch(`${w.sandbox.apiUrl}/rate_limit`, { headers: { authorization: `token ${w.target.userToken}` } });
    const reset = (await raw.json()) as { resources: { core: { reset: number } } };
    const when = new Date(reset.resources.core.reset * 1000).toISOString().slice(0, 16).replace("T", " ");
    const code = await run.exited;
    const said = `stdout:\n${run.out.join("\n")}\nstderr:\n${run.err.join("\n")}`;

    assert.equal(code, 0, said);
    const row = run.out.find((l) => new RegExp(`^\\s+#${first}\\s+released\\s`).test(l));
    assert.ok(row, said);
    assert.match(row, /GitHub's (REST|GraphQL) rate limit for this token is spent; it resets/, said);
    assert.ok(row.includes(`${when} UTC`), `the row names GitHub's reset ${when}: ${row}`);
    assert.ok(run.out.includes(`Rate limited: the limit resets ${when} UTC; run \`ticket-runner run\` again then.`), said);
    assert.ok(!run.out.some((l) => new RegExp(`^\\s+#${second}\\s`).test(l)), `#${second} is neither taken nor skipped:\n${said}`);

    await w.sandbox.admin.setFaults({});
    const untouched = await w.issue(second!);
    assert.deepEqual(untouched.labelNames, ["ready-for-agent"], "the Run took nothing more");
    assert.equal((await w.stateOf(first!))?.state, "implemented", "the State records where the released ticket got to");
  });
});
