import { strict as assert } from "node:assert";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { NodeHost } from "../../../src/adapters/node-host";
import { Failure, Refusal } from "../../../src/core/errors";
import type { Host } from "../../../src/ports/host";
import type { LockHolder } from "../../../src/ports/workspace";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { rounds } from "../../support/rounds";
import type { WorkspaceChild } from "./support/child-process";
import { startChild } from "./support/child-process";
import { otherWorkstation, stateFor, workspaceOn } from "./support/workspace-fixture";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";

const BRANCH = "ticket-runner/lock";

async function holderFor(host: Host, runId: string, pid = host.pid()): Promise<LockHolder> {
  return {
    host: host.identity(),
    pid,
    command: "ticket-runner run",
    runId,
    startedAt: new Date().toISOString(),
    processStartTime: await host.processStartTime(pid),
  };
}

/** A person edits the lock branch by hand, as on GitHub's web editor. */
async function commitByHand(fx: RemoteFixture, name: string, content: string, message: string): Promise<void> {
  const person = await fx.clone(name, { branch: BRANCH });
  await commitFiles(person, { "lock.json": content }, message);
  await git(person, ["push", "-q", "origin", BRANCH]);
}

describe("workspace: the Run lock", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;
  const host = new NodeHost();

  beforeEach(async () => {
    fx = await makeRemote();
    ws = workspaceOn(await fx.clone("target"), { host });
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("reads free before anyone ran; a take and a release are commits that say who, in words, with history kept", async () => {
    assert.deepEqual(await ws.readLock(), { held: false });
    const me = await holderFor(host, "2026-09-17T09-00-00-000");
    assert.deepEqual(await ws.acquireLock(me), { ok: true, tookOverFrom: [] });
    const held = await ws.readLock();
    assert.ok(held.held);
    assert.equal(held.runId, me.runId);
    assert.equal(held.pid, process.pid);
    assert.equal(held.processStartTime, me.processStartTime);
    const kind = host.identity().kind === "cloud" ? "cloud host" : "workstation";
    assert.equal(
      await git(fx.remote, ["log", "-1", "--format=%s", BRANCH]),
      `Held by run ${me.runId} on the ${kind} \`${host.identity().name}\`: ticket-runner run`,
    );

    assert.deepEqual(await ws.acquireLock(me), { ok: true, tookOverFrom: [] }, "taking it again is a no-op");
    assert.deepEqual(await ws.releaseLock(me.runId), { released: true, detail: `Released the lock of run ${me.runId}.` });
    assert.deepEqual(await ws.readLock(), { held: false });
    assert.equal(await git(fx.remote, ["log", "-1", "--format=%s", BRANCH]), "Free");
    assert.equal(await git(fx.remote, ["rev-list", "--count", BRANCH]), "2", "history is kept");
    assert.equal(await git(fx.remote, ["show", `${BRANCH}:lock.json`]), '{\n  "held": false\n}');
  });

  it("running: a live Run on this Host is refused, naming it and how to stop it", async () => {
    const child = await startChild(await fx.clone("child"));
    try {
      assert.deepEqual(await child.send({ op: "acquire", runId: "run-child" }), { ok: true, value: { won: true } });
      const res = await ws.acquireLock(await holderFor(host, "run-me"));
      assert.equal(res.ok, false);
      if (res.ok) return;
      assert.equal(res.standing, "running");
      assert.equal(res.holder.pid, child.pid);
      assert.ok(res.refusal instanceof Refusal);
      assert.equal(res.refusal.reason, "lock-held");
      assert.match(res.refusal.message, /^Another ticket-runner is running on this Host: run run-child/);
      assert.equal(res.refusal.details.next, "ticket-runner stop");
    } finally {
      await child.close();
    }
  });

  it("abandoned: a holder killed with SIGKILL is taken over by the next Run on this Host", async () => {
    const child = await startChild(await fx.clone("child"));
    assert.deepEqual(await child.send({ op: "acquire", runId: "run-killed" }), { ok: true, value: { won: true } });
    child.kill("SIGKILL");
    assert.equal(await child.exited, "SIGKILL");

    const res = await ws.acquireLock(await holderFor(host, "run-next"));
    assert.ok(res.ok);
    assert.deepEqual(
      res.tookOverFrom?.map((h) => [h.runId, h.pid]),
      [["run-killed", child.pid]],
    );
    assert.match(await git(fx.remote, ["log", "-1", "--format=%B", BRANCH]), /Took over from run run-killed \(pid \d+\), whose process on this Host is gone/);
  });

  it("abandoned: a pid reused by another program (start time differs) is taken over", async () => {
    const stale = { ...(await holderFor(host, "run-old")), processStartTime: "another-boot:12345" };
    assert.ok((await ws.acquireLock(stale)).ok);
    const res = await ws.acquireLock(await holderFor(host, "run-new"));
    assert.ok(res.ok);
    assert.equal(res.tookOverFrom?.[0]?.runId, "run-old");
  });

  it("elsewhere: a holder on another Host is refused and never presumed dead; the refusal says how a person frees it", async () => {
    const other = await otherWorkstation(fx.root, "0123456789abcdef0123456789abcdef", "desk");
    assert.notEqual(other.identity().id, host.identity().id);
    const elsewhere = workspaceOn(await fx.clone("other-host"), { host: other });
    // Its pid does not exist here, which must not matter.
    assert.ok((await elsewhere.acquireLock({ ...(await holderFor(other, "run-desk")), pid: 4_000_000 })).ok);

    const res = await ws.acquireLock(await holderFor(host, "run-me"));
    assert.equal(res.ok, false);
    if (res.ok) return;
    assert.equal(res.standing, "elsewhere");
    assert.match(res.refusal!.message, /held by run run-desk on the workstation `desk`/);
    assert.match(res.refusal!.message, /never presumed dead/);
    assert.match(res.refusal!.message, /commit a lock\.json that reads \{"held": false\} to the ticket-runner\/lock branch/);
    // The command that works (unlock asks for --yes for another Host's lock), and the Host and run, not a pid.
    assert.match(res.refusal!.message, /run `ticket-runner unlock --yes` from a clone of the Target/);
    assert.equal(res.refusal!.details.next, "ticket-runner unlock --yes");
    assert.doesNotMatch(res.refusal!.message, /pid|4000000/);
    assert.equal((await ws.readLock()).held, true, "left exactly as it was");
  });

  it("a free commit written by a person is honoured, and the old holder's late release leaves the new holder alone", async () => {
    const other = await otherWorkstation(fx.root, "fedcba9876543210fedcba9876543210", "vm");
    const elsewhere = workspaceOn(await fx.clone("other-host"), { host: other });
    assert.ok((await elsewhere.acquireLock(await holderFor(other, "run-vm"))).ok);
    assert.equal((await ws.acquireLock(await holderFor(host, "run-me"))).ok, false);

    await commitByHand(fx, "person", '{ "held": false }\n', "Free the lock: the VM was reclaimed");
    const res = await ws.acquireLock(await holderFor(host, "run-me"));
    assert.ok(res.ok);
    assert.deepEqual(await elsewhere.releaseLock("run-vm"), { released: false, detail: "The lock now names run run-me, not run-vm; left as it is." });
    const now = await ws.readLock();
    assert.ok(now.held && now.runId === "run-me");
  });

  it("a corrupt lock.json is reported with its path and content, and left in place; unlock frees it", async () => {
    await ws.acquireLock(await holderFor(host, "run-1"));
    await ws.releaseLock("run-1");
    await commitByHand(fx, "person", "{ held: maybe }\n", "oops");
    const tip = await git(fx.remote, ["rev-parse", BRANCH]);

    await assert.rejects(
      ws.readLock(),
      (e: unknown) => e instanceof Failure && e.reason === "invalid-record" && /lock\.json on ticket-runner\/lock cannot be read/.test(e.message),
    );
    const err = await ws.acquireLock(await holderFor(host, "run-2")).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof Refusal);
    assert.equal(err.reason, "bad-input");
    assert.equal(err.details.path, "ticket-runner/lock:lock.json");
    assert.match(err.message, /not JSON .*"\{ held: maybe \}"/);
    assert.equal(await git(fx.remote, ["rev-parse", BRANCH]), tip, "left in place");

    assert.match((await ws.unlock("by the test")).previous, /^unreadable/);
    assert.ok((await ws.acquireLock(await holderFor(host, "run-2"))).ok);
  });

  it('lockScope "host": one Run per Host, several Hosts at once; a Target-wide lock still keeps them out', async () => {
    const desk = await otherWorkstation(fx.root, "11111111111111111111111111111111", "desk");
    const vm = await otherWorkstation(fx.root, "22222222222222222222222222222222", "vm");
    const onDesk = workspaceOn(await fx.clone("desk"), { host: desk, lockScope: "host" });
    const onVm = workspaceOn(await fx.clone("vm"), { host: vm, lockScope: "host" });

    const deskTake = await onDesk.acquireLock(await holderFor(desk, "run-desk"));
    assert.ok(deskTake.ok);
    assert.equal(deskTake.peers, undefined, "the first Host sees no other Run");
    const vmTake = await onVm.acquireLock(await holderFor(vm, "run-vm"));
    assert.ok(vmTake.ok, "another Host runs at the same time");
    // The second sees the first's Run, and spreads its first picks by it (ADR 0441).
    assert.deepEqual(
      vmTake.peers?.map((p) => [p.host.id, p.runId]),
      [[desk.identity().id, "run-desk"]],
    );
    // Each Host's lock on a branch of its own: no two Hosts push one ref (ADR 0450).
    for (const h of [desk, vm]) {
      const id = h.identity().id;
      assert.equal(await git(fx.remote, ["ls-tree", "--name-only", `ticket-runner/locks/${id}`]), `lock-${id}.json`);
    }
    assert.equal(await git(fx.remote, ["for-each-ref", `refs/heads/${BRANCH}`]), "", "the shared branch is not written");
    const vmLock = await onVm.readLock();
    assert.ok(vmLock.held && vmLock.runId === "run-vm");

    // A target-scope Run honours every per-host lock.
    const target = await ws.acquireLock(await holderFor(host, "run-target"));
    assert.equal(target.ok, false);
    assert.equal(!target.ok && target.standing, "elsewhere");
    // The way out frees that Host's own file, on that Host: `unlock --yes` would free lock.json.
    assert.equal(!target.ok && target.refusal?.details.next, "ticket-runner unlock --scope host --yes");

    // And a held lock.json keeps host-scope Runs out.
    // The desk's release pushes its own branch, as it last pushed it (ADR 0400): the VM's take did not move it.
    assert.deepEqual(await onDesk.releaseLock("run-desk"), { released: true, detail: "Released the lock of run run-desk." });
    const stillVm = await onVm.readLock();
    assert.ok(stillVm.held && stillVm.runId === "run-vm", "the VM's lock file is kept");
    await onVm.releaseLock("run-vm");
    assert.ok((await ws.acquireLock(await holderFor(host, "run-target"))).ok);
    const refused = await onDesk.acquireLock(await holderFor(desk, "run-desk-2"));
    assert.equal(!refused.ok && refused.standing, "elsewhere");
  });

  it('lockScope "host": twelve Hosts started at once all take their locks, and of any two at least one sees the other', async function () {
    // When every Host's lock file was on the one lock branch, each round of pushes had one winner:
    // the last of twelve lost eleven times, and with six tries Hosts started together failed to
    // start (bench:hosts at K = 8: 2 of 8 Runs, "gave up after 6 tries"). Now each pushes its own.
    this.timeout(120_000);
    const hosts = await Promise.all(Array.from({ length: 12 }, (_, i) => otherWorkstation(fx.root, String(i + 1).padStart(32, "0"), `host-${i + 1}`)));
    const spaces = await Promise.all(hosts.map(async (h, i) => workspaceOn(await fx.clone(`host-${i + 1}`), { host: h, lockScope: "host" })));
    const takes = await Promise.all(spaces.map(async (w, i) => w.acquireLock(await holderFor(hosts[i]!, `run-${i + 1}`))));
    assert.deepEqual(
      takes.map((t) => t.ok),
      hosts.map(() => true),
      JSON.stringify(takes.filter((t) => !t.ok).map((t) => !t.ok && t.refusal?.message)),
    );
    // Each pushed its own branch, then read every lock: of any two, at least one saw the other (ADR 0450).
    const peersOf = takes.map((t) => new Set(t.ok ? (t.peers ?? []).map((p) => p.runId) : []));
    for (let a = 0; a < hosts.length; a++) {
      assert.equal(peersOf[a]!.has(`run-${a + 1}`), false, "a Run is not its own peer");
      for (let b = a + 1; b < hosts.length; b++)
        assert.ok(peersOf[a]!.has(`run-${b + 1}`) || peersOf[b]!.has(`run-${a + 1}`), `run-${a + 1} and run-${b + 1} each missed the other`);
    }
    const releases = await Promise.all(spaces.map((w, i) => w.releaseLock(`run-${i + 1}`)));
    assert.deepEqual(
      releases.map((r) => r.released),
      hosts.map(() => true),
    );
  });

  it("the sweep's read of the State records right after the take lists nothing of its own: the listing rode in the take's read after its push (ADR 0450)", async () => {
    const writer = workspaceOn(await fx.clone("writer"), { host });
    await writer.writeState(7, () => stateFor(7));
    const calls: string[] = [];
    const unwatch = watchGitProcesses((args) => {
      const command = args.find((a) => ["fetch", "push", "ls-remote"].includes(a));
      if (command) calls.push(command);
    });
    try {
      assert.ok((await ws.acquireLock(await holderFor(host, "run-1"))).ok);
      const before = calls.length;
      const read = await ws.readStates();
      assert.deepEqual(
        read.files.map((f) => f.ticket),
        [7],
      );
      assert.equal(calls.slice(before).includes("ls-remote"), false, `the read listed again: ${calls.slice(before).join(", ")}`);
      // A later read lists anew.
      const again = calls.length;
      await ws.readStates();
      assert.ok(calls.slice(again).includes("ls-remote"));
    } finally {
      unwatch();
    }
  });

  it('lockScope "host": a holder of this Host whose process is gone is taken over once, and named once', async () => {
    const mine = workspaceOn(await fx.clone("mine-host"), { host, lockScope: "host" });
    assert.ok((await mine.acquireLock({ ...(await holderFor(host, "run-old")), processStartTime: "another-boot:12345" })).ok);
    const took = await mine.acquireLock(await holderFor(host, "run-new"));
    assert.ok(took.ok);
    assert.deepEqual(
      took.tookOverFrom?.map((h) => h.runId),
      ["run-old"],
    );
    const id = host.identity().id;
    assert.equal((await git(fx.remote, ["log", "-1", "--format=%B", `ticket-runner/locks/${id}`])).match(/Took over from run run-old/g)?.length, 1);
  });

  const MIXED = rounds(20, 4);
  it(`a Target-wide Run and a per-host Run take their locks at the same moment ${MIXED} times, and never both hold`, async function () {
    this.timeout(MIXED * 15_000);
    const vm = await otherWorkstation(fx.root, "33333333333333333333333333333333", "vm");
    const onVm = workspaceOn(await fx.clone("vm"), { host: vm, lockScope: "host" });
    let both = 0;
    for (let round = 0; round < MIXED; round++) {
      const [target, perHost] = await Promise.all([ws.acquireLock(await holderFor(host, `t-${round}`)), onVm.acquireLock(await holderFor(vm, `h-${round}`))]);
      // Both may stand down (each saw the other after its own push): safe, and each says why.
      if (target.ok && perHost.ok) both += 1;
      if (target.ok) await ws.releaseLock(`t-${round}`);
      if (perHost.ok) await onVm.releaseLock(`h-${round}`);
    }
    assert.equal(both, 0, "a Target-wide Run and a per-host Run held their locks together");
    // Either, alone, takes its lock: the races left nothing held.
    const alone = await ws.acquireLock(await holderFor(host, "t-alone"));
    assert.ok(alone.ok, JSON.stringify(alone));
    await ws.releaseLock("t-alone");
    assert.ok((await onVm.acquireLock(await holderFor(vm, "h-alone"))).ok);
  });

  it("an older version's per-host file on the shared branch is still honoured: running refuses, another Host's is a peer, this Host's abandoned one is freed", async () => {
    const vmHost = await otherWorkstation(fx.root, "44444444444444444444444444444444", "vm");
    const id = host.identity().id;
    const older = async (h: Host, runId: string, over: Partial<LockHolder> = {}) =>
      `${JSON.stringify({ held: true, format: 1, ...(await holderFor(h, runId)), ...over }, null, 2)}\n`;
    // The shared branch as an older version left it: one file per Host beside lock.json.
    const person = await fx.clone("older");
    await git(person, ["checkout", "-q", "--orphan", "older-locks"]);
    await git(person, ["rm", "-q", "-rf", "."]);
    const write = async (files: Record<string, string>, message: string) => {
      await commitFiles(person, files, message);
      await git(person, ["push", "-q", "-f", "origin", `HEAD:refs/heads/${BRANCH}`]);
    };
    await write({ [`lock-${id}.json`]: await older(host, "old-here"), [`lock-${vmHost.identity().id}.json`]: await older(vmHost, "old-vm") }, "older Runs");
    const mine = workspaceOn(await fx.clone("mine"), { host, lockScope: "host" });
    const refused = await mine.acquireLock(await holderFor(host, "new-run"));
    assert.equal(!refused.ok && refused.standing, "running", "this process is alive: the older Run is running");
    await write({ [`lock-${id}.json`]: await older(host, "old-dead", { processStartTime: "another-boot:12345" }) }, "an older Run that died");
    const took = await mine.acquireLock(await holderFor(host, "new-run"));
    assert.ok(took.ok, JSON.stringify(took));
    assert.deepEqual(
      took.tookOverFrom?.map((h) => h.runId),
      ["old-dead"],
    );
    assert.deepEqual(
      took.peers?.map((p) => p.runId),
      ["old-vm"],
      "the other Host's older Run is a peer",
    );
    assert.match(await git(fx.remote, ["show", `${BRANCH}:lock-${id}.json`]), /"held": false/);
  });

  const RACES = rounds(50, 5);
  it(`two processes race for it ${RACES} times, and exactly one wins each time`, async function () {
    // A budget per round, not one for all: 50 rounds took 72 s at load ~20, and test:all runs this
    // beside other files in parallel (ADR 0320); a slow machine is slower, never wrong.
    this.timeout(RACES * 15_000);
    const children: WorkspaceChild[] = [await startChild(await fx.clone("racer-a")), await startChild(await fx.clone("racer-b"))];
    try {
      for (let round = 0; round < RACES; round++) {
        const replies = await Promise.all(children.map((c, i) => c.send({ op: "acquire", runId: `race-${round}-${i}` })));
        const values = replies.map((r) => {
          assert.ok(r.ok, JSON.stringify(r));
          return r.value as { won: boolean; standing?: string; holder?: string };
        });
        const winners = values.flatMap((v, i) => (v.won ? [i] : []));
        assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(values)}`);
        const winner = winners[0]!;
        const loser = values[1 - winner]!;
        assert.equal(loser.standing, "running");
        assert.equal(loser.holder, `race-${round}-${winner}`);
        const released = await children[winner]!.send({ op: "release", runId: `race-${round}-${winner}` });
        assert.ok(released.ok && (released.value as { released: boolean }).released);
      }
      assert.equal(await git(fx.remote, ["rev-list", "--count", BRANCH]), String(2 * RACES), `${RACES} takes and ${RACES} releases, all in the history`);
    } finally {
      await Promise.all(children.map((c) => c.close()));
    }
  });
});
