/**
 * A run directory whose claim has ended (ADR 0125): `take` moves it aside and claims, unless a Run on
 * this Host still has it open; a run.json whose lease is live, stale or not visible is left to the
 * older rules (refused as a run already here, resumable).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { createClaimGate } from "../../../src/core/claims/claim-protocol";
import { LABELS, makeWorld, refusal, type World } from "./claims-fixtures";

describe("claims: a run directory whose claim has ended (ADR 0125)", () => {
  let w: World;
  beforeEach(() => {
    w = makeWorld();
    w.gh.addUser("alice", "write");
    w.gh.addUser("bob", "write");
  });
  afterEach(() => w.cleanup());

  /** A machine Run of alice on Host m1 whose earlier Run's process is (or is not) still alive. */
  function run(root: string, alive: boolean) {
    return createClaimGate({
      tracker: w.gh.client("alice"),
      runRoot: new FsRunRoot(root),
      host: { id: "host-m1", name: "m1", kind: "cloud" },
      clock: w.clock,
      log: w.log,
      labels: LABELS,
      lease: { ttlMinutes: 45, heartbeatMinutes: 30, settleMs: 1500 },
      holder: "machine",
      runId: "run-next",
      pid: 77,
      isAlive: async () => alive,
    });
  }

  /** alice's Run claims n on m1; bob takes it over from another Host and puts it back. */
  async function takenAndReleased(root: string): Promise<{ n: number; dir: string; session: string }> {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const first = await run(root, false).take(n);
    const bob = w.claimer({ user: "bob", host: "b1", holder: "person" });
    await bob.gate.take(n, { takeOver: true });
    await bob.gate.releaseByHand(n);
    return { n, dir: first.claim.runDir, session: first.claim.lease.session };
  }

  it("the Run that held it is gone: moved aside (kept), then claimed, and the note says who took it", async () => {
    const root = join(w.dir, "m1");
    const { n, dir, session } = await takenAndReleased(root);
    const won = await run(root, false).take(n);
    assert.ok(won.setAside, "set aside");
    assert.match(
      won.setAside.note,
      /earlier claim of yours \(.*issuecomment-\d+\), which was taken over by @bob on host "b1" \(person\) at .*; that claim is now released/,
    );
    assert.equal(won.setAside.path.startsWith(join(dir, "superseded")), true, won.setAside.path);
    const kept = JSON.parse(readFileSync(join(won.setAside.path, "run.json"), "utf8")) as { session: string };
    assert.equal(kept.session, session, "the old run.json is kept where the note says");
    assert.equal(won.claim.ticket, n);
  });

  it("a Run on this Host still has it open: refused, nothing moved or written, and the way out is to stop that Run", async () => {
    const root = join(w.dir, "m1");
    const { n, dir } = await takenAndReleased(root);
    const comments = w.gh.commentsOn(n).length;
    const r = await refusal(run(root, true).take(n));
    assert.equal(r.reason, "claimed-locally");
    assert.equal(r.details.next, "ticket-runner stop");
    assert.match(r.message, /taken over by @bob/);
    assert.match(r.message, new RegExp(`then \`ticket-runner start ${n}\``));
    assert.equal(existsSync(join(dir, "superseded")), false);
    assert.equal(w.gh.commentsOn(n).length, comments);
  });

  it("a run.json naming a lease that is not on the issue is not taken for a leftover: refused as a run here, as before", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const c = w.claimer({ user: "alice", host: "m1", holder: "person" });
    const dir = c.root.dirFor(w.gh.repo, n);
    await c.root.create(dir, {
      version: 1,
      repo: "acme/widgets",
      issue: n,
      host: { id: "host-m1", name: "m1", kind: "cloud" },
      session: "other-session",
      run: "other-run",
      pid: 4242,
      startedAt: new Date(0).toISOString(),
      holder: "person",
      commentId: "3076667581",
      worktree: null,
      branch: null,
      offline: false,
    });
    const r = await refusal(c.gate.take(n));
    assert.equal(r.reason, "claimed-locally");
    assert.equal(r.details.next, `ticket-runner resume ${n}`);
    assert.equal(readdirSync(dir).includes("superseded"), false);
    // resume, where start points, does not point back to start: it gives the mv that clears the way.
    const again = await refusal(c.gate.resume(n));
    assert.equal(again.details.next, `mv ${dir} ${dir}.old && ticket-runner start ${n}`);
    assert.match(again.message, /names lease comment 3076667581, which is not on the issue/);
    renameSync(dir, `${dir}.old`);
    assert.equal((await c.gate.take(n)).claim.ticket, n);
  });

  it("resume of an ended claim's leftover says what became of it and points to start, which sets it aside", async () => {
    const root = join(w.dir, "m1");
    const { n, dir } = await takenAndReleased(root);
    const r = await refusal(run(root, false).resume(n));
    assert.equal(r.reason, "not-ready");
    assert.equal(r.details.next, `ticket-runner start ${n}`);
    assert.match(r.message, new RegExp(`run directory ${dir} holds an earlier claim of yours .*taken over by @bob`));
    assert.ok((await run(root, false).take(n)).setAside);
  });
});
