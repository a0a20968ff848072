import { strict as assert } from "node:assert";
import { HANDOFF_HISTORY, HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import { PROGRESS_MARKER } from "../../../src/core/run/progress-comment";
import { unmetFirst } from "../../fakes/fake-agent-runner";
import { World, spy } from "./world";

/** A person moves the label from ready-for-human to ready-for-agent. */
function relabel(w: World, n: number): void {
  const i = w.issue(n);
  i.labels = i.labels.filter((l) => l !== "ready-for-human");
  w.gh.label(n, "ready-for-agent", "alice");
}

describe("Run: resuming", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("hand-off, a person's relabel, then merge: fresh budget, draft out before CI, old comments history, new progress comment", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst).on(n, "verify", unmetFirst);
    await w.run({ runId: "run-1" }).start();
    const handoff = w.comments(n).find((c) => c.body.startsWith(HANDOFF_MARKER))!;
    const oldProgress = w.comments(n).find((c) => c.body.startsWith(PROGRESS_MARKER))!;
    assert.equal(w.pulls()[0]!.draft, true);
    assert.equal(w.agent.count(n, "fix"), 1);

    relabel(w, n);
    w.clock.advance(3_600_000);
    w.agent.on(n, "verify", unmetFirst); // the fresh budget is what this failure spends
    const journal: string[] = [];
    const tracker = spy(w.gh.client("bot"), "tracker", ["setDraft", "ciReport"], journal);
    const summary = await w.run({ runId: "run-2" }, { tracker }).start();

    assert.equal(summary.rows[0]!.ending, "merged");
    assert.equal(w.agent.count(n, "implement"), 1, "implemented: straight to the Checks");
    assert.equal(w.agent.count(n, "fix"), 2, "a fresh Fix budget after a person's hands");
    assert.ok(
      journal.indexOf("tracker.setDraft") >= 0 && journal.indexOf("tracker.setDraft") < journal.indexOf("tracker.ciReport"),
      "out of draft before CI is awaited",
    );
    assert.equal(w.pulls().length, 1, "the same pull request, not a second");
    assert.equal(w.pulls()[0]!.merged, true);

    const after = w.comments(n);
    const marked = after.find((c) => c.id === handoff.id)!;
    assert.equal(marked.body.split("\n")[1], HANDOFF_HISTORY, "marked under its marker");
    assert.match(marked.body, /after the fix budget was used/, "the old comment still says the budget was spent");
    assert.equal(after.find((c) => c.id === oldProgress.id)!.body, oldProgress.body, "the progress comment the person read is left as they read it");
    const progress = after.filter((c) => c.body.startsWith(PROGRESS_MARKER));
    assert.equal(progress.length, 2);
    assert.match(progress[1]!.body, /Run `run-2`/);
    assert.doesNotMatch(progress[1]!.body, /Run `run-1`/);
  });

  it("a pull request a person closed will not come out of draft: hand-off at pr", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst).on(n, "verify", unmetFirst);
    await w.run().start();
    w.pulls()[0]!.state = "closed";
    relabel(w, n);
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "handed-off");
    assert.match(summary.rows[0]!.line, /^at pr: pull request #\d+ was closed by a person/);
    assert.equal(w.pulls().length, 1, "no second pull request");
  });

  it("a second relabel after a second hand-off marks both earlier hand-offs as history", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst, { repeat: true });
    await w.run().start();
    relabel(w, n);
    await w.run().start();
    relabel(w, n);
    await w.run().start();
    const handoffs = w.comments(n).filter((c) => c.body.startsWith(HANDOFF_MARKER));
    assert.equal(handoffs.length, 3);
    assert.deepEqual(
      handoffs.map((c) => c.body.includes(HANDOFF_HISTORY)),
      [true, true, false],
    );
  });

  it("the branch in neither the worktree here nor on the remote: State removed, started over from the top", async () => {
    const n = w.ticket("Spin the widget");
    w.remote.states.set(n, {
      ticket: n,
      branch: "agent/old-name",
      state: "implemented",
      fixUsed: true,
      pullRequest: null,
      title: "t",
      runId: "old",
      version: "0.1.0",
      updatedAt: "2026-09-17T08:00:00.000Z",
    });
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.equal(w.agent.count(n, "implement"), 1);
    assert.ok(w.remote.stateWrites.some((s) => s.ticket === n && s.value === null));
  });

  it("a resumed branch is used as the State names it, not derived from the title again", async () => {
    const n = w.ticket("A title that changed");
    const branch = "agent/1-the-old-title";
    w.remote.branches.set(branch, [...w.remote.branches.get("main")!, "w1"]);
    w.remote.states.set(n, {
      ticket: n,
      branch,
      state: "implemented",
      fixUsed: false,
      pullRequest: null,
      title: "feat: old",
      runId: "old",
      version: "0.1.0",
      updatedAt: "2026-09-17T08:00:00.000Z",
    });
    await w.run().start();
    assert.equal(w.pulls()[0]!.head, branch);
    assert.equal(w.pulls()[0]!.title, "feat: old", "the State's title names the pull request");
  });

  it("a State file that cannot be read when taking a Frontier ticket: not taken, nothing claimed", async () => {
    const n = w.ticket("Spin the widget");
    w.ws.readState = async () => {
      throw new Error("written by 9.9.9");
    };
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "skipped");
    assert.match(summary.rows[0]!.line, /could not be read/);
    assert.ok(!w.gate.calls.includes(`claim #${n}`));
  });
});
