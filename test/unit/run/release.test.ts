import { strict as assert } from "node:assert";
import { HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import { PROGRESS_MARKER } from "../../../src/core/run/progress-comment";
import { commitsThenRateLimited, rateLimited, unmetFirst } from "../../fakes/fake-agent-runner";
import { World, deferred, spy } from "./world";

describe("Run: Release on a rate limit", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("at implement: a ⏸ row, State claimed, the Claim undone, no comment, no draft", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "implement", commitsThenRateLimited);
    const journal: string[] = [];
    const tracker = spy(w.gh.client("bot"), "tracker", ["createComment", "createPullRequest", "updateComment"], journal);
    const summary = await w.run({}, { tracker }).start();

    assert.equal(summary.exitCode, 0, "a released Ticket counts as taken; nothing was handed off");
    assert.equal(summary.rows[0]!.ending, "released");
    assert.equal(summary.lines.at(-1), "Rate limited.");
    assert.ok(w.gate.calls.includes(`release #${n}`));
    const issue = w.issue(n);
    assert.deepEqual(issue.labels, ["ready-for-agent"]);
    assert.deepEqual(issue.assignees, []);
    assert.equal(w.pulls().length, 0);
    assert.equal(w.comments(n).filter((c) => !c.body.startsWith(PROGRESS_MARKER)).length, 0, "no comment but the progress report");
    assert.match(w.comments(n)[0]!.body, /\| implement \| ⏸ rate limited \|/);
    const state = w.state(n)!;
    assert.equal(state.state, "claimed", "the implement Stage was stopped");
    assert.equal(state.fixUsed, false);
    const branch = w.remote.branches.get(state.branch);
    assert.ok(
      branch?.some((c) => c.startsWith("partial")),
      "what the stopped session committed is pushed",
    );
  });

  it("at verify: State implemented, Fix budget as it was", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", rateLimited);
    await w.run().start();
    assert.equal(w.state(n)!.state, "implemented");
    assert.equal(w.state(n)!.fixUsed, false);
  });

  it("a fix stopped by the limit spends nothing", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst).on(n, "fix", rateLimited);
    await w.run().start();
    assert.equal(w.state(n)!.fixUsed, false);
    assert.equal(w.comments(n).filter((c) => c.body.startsWith(HANDOFF_MARKER)).length, 0);
  });

  it("a fix that came back stays spent across a Release and the resume", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst).on(n, "verify", rateLimited);
    await w.run().start();
    assert.equal(w.state(n)!.fixUsed, true);
    assert.equal(w.agent.count(n, "fix"), 1);

    w.agent.on(n, "verify", unmetFirst);
    const again = await w.run().start();
    assert.equal(again.rows[0]!.ending, "handed-off", "resuming buys no second chance");
    assert.equal(w.agent.count(n, "fix"), 1);
    assert.equal(w.agent.count(n, "implement"), 1, "implemented: the implement Stage is not paid for twice");
  });

  it("claims nothing more; the busy Lanes finish their own tickets", async () => {
    const a = w.ticket("First");
    const b = w.ticket("Second");
    const c = w.ticket("Third");
    const hold = deferred();
    w.agent.on(a, "implement", async (act) => {
      await hold.promise;
      act.commit("impl");
      return { structured: { title: "A", summary: "a" } };
    });
    w.agent.on(b, "implement", async () => {
      // `a` is mid-implement in the other Lane when `b` hits the limit.
      setImmediate(() => hold.resolve());
      return { outcome: "rate-limited", detail: "429" };
    });
    const summary = await w.run({ lanes: 2 }).start();
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [
        [b, "released"],
        [a, "merged"],
      ],
    );
    assert.equal(w.agent.count(c), 0, "the limit that stopped one Stage would stop the next");
    assert.ok(w.issue(c).labels.includes("ready-for-agent"));
    assert.equal(summary.lines.at(-1), "Rate limited.");
  });

  it("resumes from its State file once the limit has reset, without running implement again", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", rateLimited);
    await w.run().start();
    assert.equal(w.agent.count(n, "implement"), 1);

    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.equal(w.agent.count(n, "implement"), 1, "implement ran once across both Runs");
    assert.equal(w.agent.count(n, "verify"), 2);
    assert.equal(w.state(n), null);
  });

  it("keeps the same progress comment, one section per Run", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", rateLimited);
    const first = w.run({ runId: "run-1" });
    await first.start();
    w.clock.advance(60_000);
    await w.run({ runId: "run-2" }).start();
    const progress = w.comments(n).filter((c) => c.body.startsWith(PROGRESS_MARKER));
    assert.equal(progress.length, 1);
    assert.match(progress[0]!.body, /Run `run-1`[\s\S]*⏸ rate limited[\s\S]*Run `run-2`[\s\S]*merged/);
  });
});
