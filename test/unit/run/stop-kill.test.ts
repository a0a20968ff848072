import { strict as assert } from "node:assert";
import { Refusal } from "../../../src/core/errors";
import { utcClock } from "../../../src/core/run/naming";
import { FakeHost, World, deferred } from "./world";

describe("Run: Stop and kill", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("stop: the busy Lane finishes, nothing new is taken, a second stop is ignored", async () => {
    const a = w.ticket("First");
    const b = w.ticket("Second");
    const hold = deferred();
    w.agent.on(a, "implement", async (act) => {
      await hold.promise;
      act.commit("impl");
      return { structured: { title: "A", summary: "a" } };
    });
    const run = w.run();
    let stopLineAt = "";
    const answers: string[] = [];
    run.events.subscribe((e) => {
      if (e.kind === "stage-started" && e.stage === "implement") {
        stopLineAt = utcClock(w.clock.now());
        answers.push(run.stop(), run.stop());
        hold.resolve();
      }
    });
    const summary = await run.start();
    assert.deepEqual(answers, ["stopping", "already-stopping"]);
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [[a, "merged"]],
    );
    assert.equal(w.agent.count(b), 0);
    assert.equal(summary.lines.at(-1), `Stopped at ${stopLineAt} · finishing #${a}.`);
    assert.ok(w.log.has(`#${a} left to finish · stopped`));
    assert.equal(summary.exitCode, 0, "the outcomes' exit code, as usual");
    assert.deepEqual(w.remote.lock, { held: false }, "the lock is held until the Lanes are back, then released");
  });

  it("a narrowed Run stopped before it took any of its tickets exits 2", async () => {
    const n = w.ticket("First");
    const run = w.run({ tickets: [n] });
    run.events.subscribe((e) => {
      if (e.kind === "run-started") run.stop();
    });
    const summary = await run.start();
    assert.equal(summary.exitCode, 2);
    assert.equal(w.agent.calls.length, 0);
    assert.match(summary.lines.at(-1)!, /^Stopped at \d\d:\d\d\.$/);
  });

  it("kill during implement writes nothing; the next Run on this Host resumes the Stranded ticket in place", async () => {
    const n = w.ticket("Spin the widget");
    const hold = deferred();
    w.agent.on(n, "implement", async (act) => {
      act.commit("half");
      await hold.promise;
      return { outcome: "nonzero-exit", detail: "killed" };
    });
    const run = w.run({ runId: "run-killed" });
    let writesAtKill = 0;
    run.events.subscribe((e) => {
      if (e.kind === "stage-started" && e.stage === "implement") {
        writesAtKill = w.gh.requests.length;
        run.kill();
      }
    });
    await run.start();
    hold.resolve();
    await new Promise((r) => setImmediate(r));
    const after = w.gh.requests.slice(writesAtKill).map((r) => r.method);
    assert.deepEqual(
      after.filter((m) => !["getIssue", "listComments", "getPullRequest"].includes(m)),
      [],
      "a kill writes nothing to the board",
    );
    assert.ok(w.issue(n).labels.includes("in-progress"), "the Claim simply stays");
    assert.deepEqual(w.issue(n).assignees, ["bot"]);
    assert.equal(w.state(n)!.state, "claimed");
    assert.equal(w.remote.lock.held && w.remote.lock.runId, "run-killed", "the lock stays for the next Run to take over");

    // The adapter sees the holder's process gone on this Host: abandoned, taken over by itself.
    w.ws.lockStanding = () => "abandoned";
    w.gate.calls.length = 0;
    const summary = await w.run({ runId: "run-2" }).start();
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.ok(w.gate.calls.includes(`adopt #${n}`), "a Stranded ticket is adopted, not claimed again");
    assert.ok(!w.gate.calls.includes(`claim #${n}`));
    assert.equal(w.agent.count(n, "implement"), 2, "state claimed: implement had not finished, so it runs again");
  });

  it("kill mid-Stage once the agent named its session: noted in this Host's local claim, not pushed; the next Run here continues it (ADR 0452)", async () => {
    const n = w.ticket("Spin the widget");
    const hold = deferred();
    const run = w.run({ runId: "run-killed" });
    run.events.subscribe((e) => {
      // The Stage starts after the claim's record was written: the note is the newer of the two.
      if (e.kind === "stage-started" && e.stage === "implement") w.clock.advance(1000);
    });
    w.agent.on(n, "implement", async (act) => {
      act.commit("half");
      for (let turn = 0; !w.gate.noted.has(n) && turn < 1000; turn++) await new Promise((r) => setImmediate(r));
      run.kill();
      await hold.promise;
      return { outcome: "nonzero-exit", detail: "killed" };
    });
    await run.start();
    hold.resolve();
    assert.deepEqual(w.gate.noted.get(n)?.stages, { implement: "s-1" }, "the session is in this Host's local claim");
    const writes = w.remote.stateWrites.filter((s) => s.ticket === n);
    assert.equal(writes.length, 1, "no State write for the session: the claim's record only");
    assert.equal(w.state(n)!.sessions, undefined);

    w.ws.lockStanding = () => "abandoned";
    const summary = await w.run({ runId: "run-2" }).start();
    assert.equal(summary.rows[0]!.ending, "merged");
    const implementCalls = w.agent.calls.filter((c) => c.stage === "implement");
    assert.deepEqual(
      implementCalls.map((c) => c.resumeSession),
      [undefined, "s-1"],
      "the next Run continues the noted session",
    );
  });

  it("a ticket killed after implement resumes at the Checks, from a second clone on another Host", async () => {
    const n = w.ticket("Spin the widget");
    const hold = deferred();
    w.agent.on(n, "verify", async () => {
      await hold.promise;
      return { outcome: "nonzero-exit" };
    });
    const run = w.run({ runId: "run-killed" });
    run.events.subscribe((e) => {
      if (e.kind === "stage-started" && e.stage === "verify") run.kill();
    });
    await run.start();
    hold.resolve();
    assert.equal(w.state(n)!.state, "implemented");

    // Host B: another clone of the same remote. A person released the lock the vanished Host left.
    const other = w.clone();
    const hostB = new FakeHost({ id: "host-b", name: "cloud-vm", kind: "cloud" }, 77);
    assert.ok(w.remote.lock.held);
    await other.unlock("host A is gone");
    w.agent.calls.length = 0;
    const agentB = w.agent;
    const summary = await w.run({ runId: "run-b" }, { workspace: other, host: hostB, agent: agentB }).start();
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.deepEqual(
      w.agent.calls.map((c) => c.stage),
      ["verify"],
      "the implement Stage is not paid for twice",
    );
    assert.ok(other.calls.includes(`resumeLane ${n} ${w.ws.branchFor(n, "Spin the widget")}`));
  });

  it("refuses while another Run on this Host holds the lock, and leaves the lock alone", async () => {
    w.remote.lock = {
      held: true,
      host: { id: "host-a", name: "desk", kind: "workstation" },
      pid: 99,
      command: "ticket-runner run",
      runId: "other-run",
      startedAt: "2026-09-17T08:00:00.000Z",
      processStartTime: "x",
    };
    await assert.rejects(
      w.run().start(),
      (e: unknown) => e instanceof Refusal && e.reason === "lock-held" && /Another ticket-runner is running on this Host/.test(e.message),
    );
    assert.equal(w.remote.lock.held && w.remote.lock.runId, "other-run");
  });

  it("refuses a lock held on another Host, never presuming it dead", async () => {
    w.remote.lock = {
      held: true,
      host: { id: "host-z", name: "vm-7", kind: "cloud" },
      pid: 99,
      command: "ticket-runner run",
      runId: "far-run",
      startedAt: "2026-09-17T08:00:00.000Z",
      processStartTime: null,
    };
    await assert.rejects(w.run().start(), (e: unknown) => e instanceof Refusal && /another Host/.test(e.message) && /vm-7/.test(e.message));
  });

  it("refusals come before the lock: no Checks configured, or a checkout preflight refuses", async () => {
    w.config = { checks: [] };
    await assert.rejects(w.run().start(), (e: unknown) => e instanceof Refusal && e.reason === "bad-config");
    assert.deepEqual(w.remote.lock, { held: false });
    w.config = { checks: [["npm", "test"]] };
    w.ws.script.preflight = () => new Refusal("bad-input", "State files from an older version are in .ticket-runner/state (#3).");
    await assert.rejects(w.run().start(), /older version/);
    assert.deepEqual(w.remote.lock, { held: false });
    assert.deepEqual(w.remote.lockHistory, []);
  });

  it("says so when it cannot release the lock, and keeps its own exit code", async () => {
    w.ticket("Spin the widget");
    w.ws.releaseLock = async () => {
      throw new Error("push rejected");
    };
    const summary = await w.run().start();
    assert.equal(summary.exitCode, 0);
    assert.ok(summary.lines.some((l) => l.startsWith("Could not release the Run lock: push rejected")));
  });

  it("a stopped Run on an empty Frontier just ends", async () => {
    const run = w.run();
    assert.equal(run.stop(), "not-running");
    const summary = await run.start();
    assert.equal(summary.exitCode, 0);
    assert.equal(summary.lines.at(-1), "Nothing to do: the Frontier is empty.");
  });
});
