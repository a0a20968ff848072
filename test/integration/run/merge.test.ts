import { strict as assert } from "node:assert";
import { RunWorld } from "./run-helpers";

describe("run (integration): a ticket to merge", function () {
  this.timeout(120_000);
  let w: RunWorld;
  before(async () => (w = await RunWorld.make()));
  after(async () => w?.dispose());

  it("merges a ticket through every Stage with the demo agent, real git and the sandbox", async () => {
    const [n] = await w.tickets([w.ticket("greet")]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 0, `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`);
    assert.match(r.out.at(-1)!, /^Done: 1 merged\.$/);
    const issue = await w.issue(n!);
    assert.equal(issue.state, "closed");
    assert.ok(!issue.labelNames.includes("in-progress"));
    assert.match(issue.body ?? "", /- \[x\] `src\/greet.js` exports `greet`/);
    const [pr] = await w.pulls();
    assert.equal(pr!.merged_at !== null, true);
    assert.match(pr!.body ?? "", new RegExp(`Closes #${n}`));
    assert.equal(await w.stateOf(n!), null);
    // The repository keeps merged branches (GitHub's default): the Run deletes the one it merged.
    assert.equal((await w.repoSettings()).delete_branch_on_merge, false);
    assert.deepEqual(
      (await w.branches()).filter((b) => b.startsWith("agent/")),
      [],
      "the merged agent branch is deleted from the remote",
    );
    assert.deepEqual(await w.lock(), { held: false });
    assert.deepEqual(w.agentCalls(w.target.clone, n!), ["implement", "verify"]);
  });
});
