import { strict as assert } from "node:assert";
import { World } from "./world";

/** ADR 0505: a merged ticket's end-of-ticket writes wait for its Lane's next agent, never for the Run's end. */
describe("Run: the writes after a merge wait for the Lane's next agent", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("the claim's finish and the issue's closing come after the next ticket's agent has started on that Lane", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    const journal: string[] = [];
    const finish = w.gate.finish.bind(w.gate);
    w.gate.finish = async (claim) => {
      journal.push(`finish #${claim.ticket}`);
      return finish(claim);
    };
    w.agent.on(b, "implement", (act) => {
      journal.push(`#${b} agent at work`);
      act.commit("impl");
      return { structured: { title: "t", summary: "s" } };
    });
    const run = w.run({ lanes: 1 });
    run.events.subscribe((e) => {
      if (e.kind === "lane-started") journal.push(`#${e.ticket} lane-started`);
      if (e.kind === "transcript" && e.ticket === b && e.stage === "implement" && !journal.includes(`#${b} first line`)) journal.push(`#${b} first line`);
    });
    const summary = await run.start();
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged", "merged"],
    );
    const at = (entry: string) => journal.indexOf(entry);
    assert.ok(at(`finish #${a}`) > at(`#${b} lane-started`), `A's finish waited for B's take: ${journal.join(", ")}`);
    assert.ok(at(`finish #${a}`) > at(`#${b} first line`), `A's finish waited for B's agent: ${journal.join(", ")}`);
    // Nothing is left undone: both issues are closed and both claims finished by the Run's end.
    assert.equal(w.issue(a).state, "closed");
    assert.equal(w.issue(b).state, "closed");
    assert.ok(at(`finish #${b}`) >= 0);
  });

  it("a Lane with nothing more to take starts them at once: the Run's last ticket is closed before the Run ends", async () => {
    const a = w.ticket("A");
    const summary = await w.run({ lanes: 2 }).start();
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged"],
    );
    assert.equal(w.issue(a).state, "closed");
    assert.equal(w.state(a), null, "the State record is gone");
  });
});
