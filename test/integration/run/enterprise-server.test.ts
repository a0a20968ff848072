/**
 * A GitHub Enterprise Server without issue dependencies (sandbox fault `issueDependencies: false`
 * answers any document naming `Issue.blockedBy` as such a server does: `undefinedField`). The Run's
 * Frontier check asks for blockers before every claim; it must learn once that the server has none
 * and go on (ADR 0131), not throw and start nothing.
 */
import { strict as assert } from "node:assert";
import { RunWorld } from "./run-helpers";

describe("run (integration): a GitHub Enterprise Server without issue dependencies", function () {
  this.timeout(120_000);
  let w: RunWorld;
  before(async () => {
    w = await RunWorld.make({ lanes: 2 });
    await w.sandbox.admin.setFaults({ issueDependencies: false });
  });
  after(async () => w?.dispose());

  it("merges its tickets and says once, naming the server, what is missing", async () => {
    const tickets = await w.tickets([w.ticket("greet"), w.ticket("farewell")]);
    const r = await w.cliDone(["run"]);
    const all = `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;
    assert.equal(r.code, 0, all);
    assert.match(r.out.at(-1)!, /^Done: 2 merged\.$/, all);
    for (const n of tickets) assert.equal((await w.issue(n)).state, "closed");
    const warnings = r.err.filter((l) => /has no issue dependencies \(Issue\.blockedBy/.test(l));
    assert.equal(warnings.length, 1, all);
    assert.match(warnings[0]!, /blocked issues .* do not hold a ticket back/);
  });
});
