import { strict as assert } from "node:assert";
import { World, deferred } from "./world";

/** Another Host merges to the base while this ticket is being implemented. */
function baseMovesDuringImplement(w: World, n: number): void {
  w.agent.on(n, "implement", (act) => {
    act.commit("impl");
    w.remote.advanceBase();
    return { structured: { title: "t", summary: "s" } };
  });
}

describe("Run: Lanes and the Landing", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("two Lanes run two tickets at once; their Landings run side by side, and merge first come first served", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    const bothImplementing = deferred();
    let implementing = 0;
    for (const n of [a, b]) {
      w.agent.on(n, "implement", async (act) => {
        implementing += 1;
        if (implementing === 2) bothImplementing.resolve();
        await bothImplementing.promise;
        act.commit("impl");
        return { structured: { title: `T${n}`, summary: "s" } };
      });
    }
    // CI stays pending for a while, so both Landings are seen waiting on it at once.
    const polls = new Map<string, number>();
    w.ci = (branch) => {
      const k = (polls.get(branch) ?? 0) + 1;
      polls.set(branch, k);
      return k < 4 ? { state: "pending", details: [] } : { state: "success", details: [] };
    };
    const run = w.run({ lanes: 2 });
    const inCi = new Set<number>();
    let ciSideBySide = false;
    const order: number[] = [];
    const merged: number[] = [];
    run.events.subscribe((e) => {
      if (e.kind === "stage-started" && e.stage === "rebase") order.push(e.ticket);
      if (e.kind === "stage-started" && e.stage === "ci") {
        inCi.add(e.ticket);
        if (inCi.size === 2) ciSideBySide = true;
      }
      if (e.kind === "stage-ended" && e.stage === "ci") inCi.delete(e.ticket);
      if (e.kind === "stage-ended" && e.stage === "merge") merged.push(e.ticket);
    });
    const summary = await run.start();
    assert.equal(implementing, 2);
    assert.ok(ciSideBySide, "both waited on CI at once");
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged", "merged"],
    );
    assert.deepEqual(merged, order, "merged in the order their Landings started");
  });

  it("refills Lanes as they free up until the Frontier is empty", async () => {
    const tickets = [w.ticket("A"), w.ticket("B"), w.ticket("C"), w.ticket("D"), w.ticket("E")];
    const summary = await w.run({ lanes: 2 }).start();
    assert.deepEqual(
      summary.rows.map((r) => r.ticket).sort((x, y) => x - y),
      tickets,
    );
    assert.ok(summary.rows.every((r) => r.ending === "merged"));
  });

  it("a rebase that stops gets one conflict Stage, judged by the worktree; the Checks run again", async () => {
    const n = w.ticket("A");
    w.ws.script.rebase = () => "conflict";
    baseMovesDuringImplement(w, n);
    let checks = 0;
    w.ws.script.check = () => {
      checks += 1;
      return {};
    };
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.equal(w.agent.count(n, "conflict"), 1);
    assert.equal(checks, 2, "once before verify, once after the conflict was resolved");
    assert.ok(w.agent.calls.find((c) => c.stage === "conflict")!.prompt.includes("src/conflicted.ts"));
  });

  it("a conflict Stage that only resolves the files: the rebase is continued for it", async () => {
    const n = w.ticket("A");
    w.ws.script.rebase = () => "conflict";
    baseMovesDuringImplement(w, n);
    w.agent.on(n, "conflict", (act) => {
      act.workspace.resolveConflict(act.workspace.lanes.get(n)!);
      return { structured: { title: "t", summary: "s" } };
    });
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "merged");
  });

  it("a conflict the Stage leaves unresolved: the rebase is aborted back to the tip and the ticket handed off", async () => {
    const n = w.ticket("A");
    w.ws.script.rebase = () => "conflict";
    baseMovesDuringImplement(w, n);
    w.agent.on(n, "conflict", () => ({ structured: { title: "t", summary: "gave up" } }));
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "handed-off");
    assert.match(summary.rows[0]!.line, /at conflict: rebase onto main stopped with conflicts/);
    assert.ok(w.ws.calls.includes(`abortRebase ${n}`));
    assert.equal(w.agent.count(n, "fix"), 0, "a conflict Stage is its own one chance");
  });

  it("a rate limit in the conflict Stage releases the ticket, the rebase aborted", async () => {
    const n = w.ticket("A");
    w.ws.script.rebase = () => "conflict";
    baseMovesDuringImplement(w, n);
    w.agent.on(n, "conflict", () => ({ outcome: "rate-limited" }));
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "released");
    assert.equal(w.state(n)!.state, "implemented");
    assert.ok(!w.ws.isRebasing(n));
  });

  it("while A waits on a slow CI, B rebases, opens its pull request and starts CI; B merges only after A", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    const aInCi = deferred();
    let bInCi = false;
    let bRebasedWhileAInCi = false;
    let aInCiNow = false;
    const merged: number[] = [];
    w.agent.on(b, "implement", async (act) => {
      await aInCi.promise;
      act.commit("impl");
      return { structured: { title: "B", summary: "s" } };
    });
    // A's CI passes only once B's CI has started: the old Landing (CI inside the mutex) never gets there.
    w.ci = (branch) => (branch.startsWith(`agent/${a}-`) && !bInCi ? { state: "pending", details: [] } : { state: "success", details: [] });
    const run = w.run({ lanes: 2 });
    run.events.subscribe((e) => {
      if (e.kind === "stage-started" && e.stage === "ci" && e.ticket === a) {
        aInCiNow = true;
        aInCi.resolve();
      }
      if (e.kind === "stage-ended" && e.stage === "ci" && e.ticket === a) aInCiNow = false;
      if (e.kind === "stage-started" && e.stage === "rebase" && e.ticket === b && aInCiNow) bRebasedWhileAInCi = true;
      if (e.kind === "stage-started" && e.stage === "ci" && e.ticket === b) bInCi = true;
      if (e.kind === "stage-ended" && e.stage === "merge") merged.push(e.ticket);
    });
    const summary = await run.start();
    assert.ok(bRebasedWhileAInCi, "B rebased while A waited on CI");
    assert.deepEqual(merged, [a, b]);
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [
        [a, "merged"],
        [b, "merged"],
      ],
    );
  });

  for (const touches of [true, false]) {
    it(`a neighbour's merge ${touches ? "that touches B's files: B is rebased and tested again before it merges" : "that touches none of B's files: B merges as it is, not rebased or tested again"}`, async () => {
      const a = w.ticket("A");
      const b = w.ticket("B");
      const aInCi = deferred();
      let bInCi = false;
      w.agent.on(b, "implement", async (act) => {
        await aInCi.promise;
        act.commit("impl");
        return { structured: { title: "B", summary: "s" } };
      });
      w.ws.script.touches = (t) => t === b && touches;
      w.ci = (branch) => (branch.startsWith(`agent/${a}-`) && !bInCi ? { state: "pending", details: [] } : { state: "success", details: [] });
      const run = w.run({ lanes: 2 });
      const rebases = new Map<number, number>();
      const cis = new Map<number, number>();
      run.events.subscribe((e) => {
        if (e.kind === "stage-started" && e.stage === "ci" && e.ticket === a) aInCi.resolve();
        if (e.kind === "stage-started" && e.stage === "ci" && e.ticket === b) bInCi = true;
        if (e.kind === "stage-started" && e.stage === "rebase") rebases.set(e.ticket, (rebases.get(e.ticket) ?? 0) + 1);
        if (e.kind === "stage-started" && e.stage === "ci") cis.set(e.ticket, (cis.get(e.ticket) ?? 0) + 1);
        // A's merge moves the base, as GitHub's would.
        if (e.kind === "stage-ended" && e.stage === "merge" && e.ticket === a) w.remote.advanceBase();
      });
      const summary = await run.start();
      assert.deepEqual(
        summary.rows.map((r) => [r.ticket, r.ending]),
        [
          [a, "merged"],
          [b, "merged"],
        ],
      );
      assert.equal(rebases.get(b), touches ? 2 : 1);
      assert.equal(cis.get(b), touches ? 2 : 1);
      assert.equal(rebases.get(a), 1);
    });
  }
  it("the CI wait reads the pull request and its checks side by side, and polls every pollSeconds start to start (ADR 0485)", async () => {
    w.ticket("A");
    let polls = 0;
    w.ci = () => (++polls < 4 ? { state: "pending", details: [] } : { state: "success", details: [] });
    const readAt: number[] = [];
    let inFlight = 0;
    let together = 0;
    const follow = w.gh.beforeRequest!;
    w.gh.beforeRequest = async (user, method) => {
      await follow(user, method);
      if (method !== "getPullRequest" && method !== "ciReport") return;
      inFlight += 1;
      together = Math.max(together, inFlight);
      if (method === "ciReport") {
        readAt.push(w.clock.now().getTime());
        // Each read of the checks takes 400 ms of GitHub's time.
        w.clock.advance(400);
      }
      await Promise.resolve();
      inFlight -= 1;
    };
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged"],
    );
    assert.equal(together, 2, "the pull request and its checks were read at once");
    assert.equal(readAt.length, 4);
    // pollSeconds is 15 by default: a read's own 400 ms is not added to the interval.
    assert.deepEqual(
      readAt.slice(1).map((t, i) => t - readAt[i]!),
      [15_000, 15_000, 15_000],
    );
  });

  it("after the merge the State record goes only once the claim is finished, the sweep's pointer back to it (ADR 0485)", async () => {
    const n = w.ticket("A");
    const finish = w.gate.finish.bind(w.gate);
    let finished = false;
    w.gate.finish = async (claim) => {
      // A slow finish: the criteria's tick and the progress comment go on beside it.
      await new Promise((r) => setImmediate(r));
      await finish(claim);
      finished = true;
    };
    let stateGoneEarly = false;
    const writeState = w.ws.writeState.bind(w.ws);
    w.ws.writeState = async (ticket, change) => {
      if (change(w.state(ticket)) === null && !finished) stateGoneEarly = true;
      return writeState(ticket, change);
    };
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged"],
    );
    assert.ok(finished);
    assert.equal(stateGoneEarly, false, "the State record was removed before the claim was finished");
    assert.equal(w.state(n), null);
    assert.match(w.issue(n).body, /- \[x\] the widget spins/);
  });
  it("a merged ticket's end-of-ticket writes and clean-up run off its Lane's path: the Lane takes its next ticket meanwhile, and the Run ends after them (ADR 0485)", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    const bStarted = deferred();
    let bFirst = false;
    let cleanedUp = false;
    const cleanupLane = w.ws.cleanupLane.bind(w.ws);
    w.ws.cleanupLane = async (lane, opts) => {
      if (lane.ticket === a) {
        // B's start, or a minute of the Run's time, whichever comes first: the old path never starts B here.
        bFirst = await Promise.race([bStarted.promise.then(() => true), w.clock.sleep(60_000).then(() => false)]);
      }
      const report = await cleanupLane(lane, opts);
      if (lane.ticket === a) cleanedUp = true;
      return report;
    };
    const run = w.run({ lanes: 1 });
    run.events.subscribe((e) => {
      if (e.kind === "lane-started" && e.ticket === b) bStarted.resolve();
    });
    const summary = await run.start();
    assert.ok(bFirst, "B's Lane started while A's clean-up was still running");
    assert.ok(cleanedUp, "the Run ended before A's clean-up was done");
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [
        [a, "merged"],
        [b, "merged"],
      ],
    );
    assert.equal(w.state(a), null);
    assert.equal(w.state(b), null);
  });

  // ADR 0505: a merged ticket's end-of-ticket writes wait for its Lane's next agent, never for the Run's end.
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
