import { strict as assert } from "node:assert";
import { Refusal } from "../../../src/core/errors";
import { NO_CRITERIA_MARKER } from "../../../src/core/run/guards";
import { World } from "./world";

describe("Run: the Frontier, guards and narrowing", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("takes open, ready, unassigned, unblocked tickets lowest first, with a trusted label only", async () => {
    const blocker = w.ticket("Blocker", { labels: [] });
    const blocked = w.ticket("Blocked");
    w.gh.addBlocker(blocked, blocker);
    const assigned = w.ticket("Assigned");
    w.issue(assigned).assignees.push("bob");
    const untrusted = w.ticket("Labelled by a stranger", { by: "mallory" });
    const human = w.ticket("With a person", { labels: ["ready-for-human"] });
    const ok2 = w.ticket("Second good");
    const ok1 = w.ticket("First good");
    const closedBlocker = w.ticket("Closed blocker", { labels: [] });
    w.issue(closedBlocker).state = "closed";
    const unblocked = w.ticket("Blocked only by a closed issue");
    w.gh.addBlocker(unblocked, closedBlocker);

    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => r.ticket),
      [ok2, ok1, unblocked],
    );
    for (const n of [blocker, blocked, assigned, untrusted, human]) assert.equal(w.agent.count(n), 0, `#${n} is not on the Frontier`);
  });

  it("skips a ticket without unticked criteria with ONE comment, never repeated", async () => {
    const n = w.ticket("Vague", { body: "Make it better.\n\n```\n- [ ] inside a fence does not count\n```\n- [x] already ticked" });
    const first = await w.run().start();
    assert.deepEqual(
      first.rows.map((r) => [r.ticket, r.ending]),
      [[n, "skipped"]],
    );
    assert.match(first.rows[0]!.line, /no unticked `- \[ \]` acceptance criteria/);
    await w.run().start();
    const guards = w.comments(n).filter((c) => c.body.startsWith(NO_CRITERIA_MARKER));
    assert.equal(guards.length, 1);
    assert.match(guards[0]!.body, /- \[ \] `npm test` passes/, "it says how to fix it");
    assert.ok(!w.gate.calls.includes(`claim #${n}`), "a skipped ticket is never claimed");
    assert.deepEqual(w.issue(n).labels, ["ready-for-agent"]);
  });

  it("picks a once-skipped ticket up by itself when criteria are added", async () => {
    const n = w.ticket("Vague", { body: "Make it better." });
    await w.run().start();
    w.issue(n).body = "Make it better.\n\n- [ ] it is better";
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "merged");
  });

  it("narrowed `run 4 9`: only those tickets, not-ready ones skipped with a reason", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B", { labels: ["ready-for-human"] });
    const c = w.ticket("C");
    const summary = await w.run({ tickets: [c, b] }).start();
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [
        [b, "skipped"],
        [c, "merged"],
      ],
    );
    assert.match(summary.rows[0]!.line, /not ready: labelled ready-for-human/);
    assert.equal(w.agent.count(a), 0);
    assert.equal(summary.exitCode, 0);
  });

  it("a narrowed Run that can take none of its tickets exits 2", async () => {
    const b = w.ticket("B", { labels: ["ready-for-human"] });
    const summary = await w.run({ tickets: [b, 999] }).start();
    assert.equal(summary.exitCode, 2);
    assert.deepEqual(
      summary.rows.map((r) => r.line),
      ["not ready: labelled ready-for-human", "no such issue"],
    );
  });

  it("a refused claim is skipped, its own State record removed, and the Lane tries the next ticket", async () => {
    const a = w.ticket("Lost");
    const b = w.ticket("Won");
    w.gate.claimOverride = (t) =>
      t === a
        ? { kind: "lost", reason: "not labelled ready-for-agent any more", refusal: new Refusal("not-ready", "not labelled ready-for-agent any more") }
        : null;
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [
        [a, "skipped"],
        [b, "merged"],
      ],
    );
    assert.equal(w.state(a), null);
  });

  it("a take that met a fault (not a refusal) is tried once more in the same Run, after a pause", async () => {
    const n = w.ticket("Flaky claim");
    let faults = 1;
    w.gate.claimOverride = () => {
      if (faults-- > 0) throw new Error("fetch failed");
      return null;
    };
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [[n, "merged"]],
    );
    assert.deepEqual(
      w.gate.calls.filter((c) => c.startsWith("claim")),
      [`claim #${n}`, `claim #${n}`],
    );
    assert.ok(w.log.has(`#${n}: could not be taken (the claim failed: fetch failed); trying once more in 3 s`));
  });

  it("a take that meets a fault twice is skipped with the fault, not tried a third time", async () => {
    const n = w.ticket("Broken claim");
    w.gate.claimOverride = () => {
      throw new Error("fetch failed");
    };
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending, r.line]),
      [[n, "skipped", "the claim failed: fetch failed"]],
    );
    assert.equal(w.gate.calls.filter((c) => c.startsWith("claim")).length, 2);
  });

  it("a refused claim is an answer: never tried again in the same Run", async () => {
    const n = w.ticket("Refused claim");
    w.gate.claimOverride = () => ({ kind: "lost", reason: "lost the race to host-b", refusal: new Refusal("race-yielded", "lost the race to host-b") });
    await w.run().start();
    assert.deepEqual(
      w.gate.calls.filter((c) => c.startsWith("claim")),
      [`claim #${n}`],
    );
  });

  it("a lost claim leaves a rival's State record alone", async () => {
    const a = w.ticket("Lost");
    w.gate.claimOverride = (t) => {
      // The winner on another Host writes its record between our write and our claim's answer.
      w.remote.states.set(t, { ...w.remote.states.get(t)!, runId: "rival-run" });
      return { kind: "lost", reason: "lost the race", refusal: new Refusal("race-yielded", "lost the race") };
    };
    await w.run().start();
    assert.equal(w.state(a)!.runId, "rival-run");
  });

  it("a remote that refuses the first State write ends the ticket with nothing claimed", async () => {
    const n = w.ticket("Refused");
    w.remote.stateWriteFault = () => new Error("remote rejected the push");
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "skipped");
    assert.match(summary.rows[0]!.line, /refused its State file, so nothing was claimed/);
    assert.ok(!w.gate.calls.includes(`claim #${n}`));
    assert.deepEqual(w.issue(n).labels, ["ready-for-agent"]);
  });

  it("every later State write that fails is logged and nothing more", async () => {
    const n = w.ticket("Flaky remote");
    let writes = 0;
    w.remote.stateWriteFault = () => (++writes > 1 ? new Error("push failed") : null);
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.ok(w.log.has(`#${n}: could not record the State file (implemented)`));
  });

  it("--lanes overrides the config", async () => {
    w.config = { ...w.config, lanes: 1 };
    w.ticket("A");
    w.ticket("B");
    const run = w.run({ lanes: 2 });
    let max = 0;
    run.events.subscribe(() => (max = Math.max(max, run.holding().length)));
    await run.start();
    assert.equal(max, 2);
  });
});
