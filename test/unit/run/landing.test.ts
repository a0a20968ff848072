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

  it("two Lanes run two tickets at once, and land one at a time, first come first served", async () => {
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
    // CI stays pending for a while, so the first Landing holds the mutex long enough to be seen.
    const polls = new Map<string, number>();
    w.ci = (branch) => {
      const k = (polls.get(branch) ?? 0) + 1;
      polls.set(branch, k);
      return k < 4 ? { state: "pending", details: [] } : { state: "success", details: [] };
    };
    const run = w.run({ lanes: 2 });
    let landing: number | null = null;
    let overlaps = 0;
    const order: number[] = [];
    run.events.subscribe((e) => {
      if (e.kind === "stage-started" && e.stage === "rebase") {
        if (landing !== null) overlaps += 1;
        landing = e.ticket;
        order.push(e.ticket);
      }
      if (e.kind === "stage-ended" && e.stage === "merge") landing = null;
    });
    const summary = await run.start();
    assert.equal(implementing, 2);
    assert.equal(overlaps, 0, "never two Landings at once");
    assert.deepEqual(summary.rows.map((r) => r.ending), ["merged", "merged"]);
    assert.deepEqual(order, summary.rows.map((r) => r.ticket), "landed in the order they arrived");
  });

  it("refills Lanes as they free up until the Frontier is empty", async () => {
    const tickets = [w.ticket("A"), w.ticket("B"), w.ticket("C"), w.ticket("D"), w.ticket("E")];
    const summary = await w.run({ lanes: 2 }).start();
    assert.deepEqual(summary.rows.map((r) => r.ticket).sort((x, y) => x - y), tickets);
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

  it("a Landing that waits on a slow CI lets the other Lane work, but not land", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    const aInCi = deferred();
    let bVerifiedWhileALanded = false;
    let aLanding = false;
    let overlapped = false;
    w.agent.on(b, "implement", async (act) => {
      await aInCi.promise;
      act.commit("impl");
      return { structured: { title: "B", summary: "s" } };
    });
    w.ci = (branch) => (branch.startsWith(`agent/${a}-`) && !bVerifiedWhileALanded ? { state: "pending", details: [] } : { state: "success", details: [] });
    const run = w.run({ lanes: 2 });
    run.events.subscribe((e) => {
      if (e.kind === "stage-started" && e.stage === "ci" && e.ticket === a) {
        aLanding = true;
        aInCi.resolve();
      }
      if (e.kind === "stage-ended" && e.stage === "merge" && e.ticket === a) aLanding = false;
      if (e.kind === "stage-ended" && e.stage === "verify" && e.ticket === b && aLanding) bVerifiedWhileALanded = true;
      if (e.kind === "stage-started" && e.stage === "rebase" && e.ticket === b && aLanding) overlapped = true;
    });
    const summary = await run.start();
    assert.ok(bVerifiedWhileALanded);
    assert.equal(overlapped, false, "B may not start landing while A lands");
    assert.deepEqual(summary.rows.map((r) => [r.ticket, r.ending]), [[a, "merged"], [b, "merged"]]);
  });
});
