/**
 * The State record rides in the branch's pushes, all or none, each ref under its own lease: the
 * "implemented" record with the branch's push (ADR 0433), and the record's removal with the merged
 * branch's deletion (ADR 0431). A lease that refuses moves nothing, and each goes its usual way.
 */
import { strict as assert } from "node:assert";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { stateRecordRef } from "../../../src/core/schemas/state-file";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { stateFor, workspaceOn } from "./support/workspace-fixture";

async function refOn(remote: string, ref: string): Promise<string | null> {
  return git(remote, ["rev-parse", "--verify", "-q", ref]).catch(() => null);
}

/** The git commands that reach the remote while `work` runs, in order. */
async function remoteCalls<T>(work: () => Promise<T>): Promise<{ value: T; calls: string[] }> {
  const calls: string[] = [];
  const unwatch = watchGitProcesses((args) => {
    const command = args.find((a) => ["fetch", "push", "ls-remote"].includes(a));
    if (command) calls.push(command);
  });
  try {
    return { value: await work(), calls };
  } finally {
    unwatch();
  }
}

describe("workspace: the State record removed with the merged branch", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
    ws = workspaceOn(await fx.clone("target"));
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  async function mergedLane(ticket: number) {
    await ws.fetchBase("main");
    const lane = await ws.cutLane(ticket, `agent/${ticket}-x`, "main");
    const sha = await commitFiles(lane.path, { [`t${ticket}.txt`]: "work\n" }, "work");
    await ws.push(lane);
    await ws.writeState(ticket, () => stateFor(ticket, { branch: lane.branch, state: "implemented" }));
    await fx.pushCommit({ [`t${ticket}.txt`]: "work\n" }, `squashed #${ticket}`);
    return { lane, sha };
  }

  it("one push deletes both the record and the branch", async () => {
    const { lane, sha } = await mergedLane(21);
    const { value: report, calls } = await remoteCalls(() => ws.cleanupLane(lane, { deleteRemote: true, base: "main", mergedHead: sha, removeState: 21 }));
    assert.equal(report.stateRemoved, true);
    assert.equal(report.remoteBranch, "deleted");
    assert.deepEqual(calls, ["push"]);
    assert.equal(await refOn(fx.remote, stateRecordRef(21)), null);
    assert.equal(await refOn(fx.remote, `refs/heads/${lane.branch}`), null);
    assert.equal(await ws.readState(21), null);
  });

  it("a record another Host moved since is kept whole, the branch still goes, and the record is then removed as it is now", async () => {
    const { lane, sha } = await mergedLane(22);
    const other = workspaceOn(await fx.clone("other"));
    await other.writeState(22, (current) => ({ ...current!, title: "moved by another Host" }));
    const moved = await refOn(fx.remote, stateRecordRef(22));
    const report = await ws.cleanupLane(lane, { deleteRemote: true, base: "main", mergedHead: sha, removeState: 22 });
    assert.equal(report.stateRemoved, false);
    assert.equal(report.remoteBranch, "deleted");
    assert.equal(await refOn(fx.remote, stateRecordRef(22)), moved);
    await ws.removeState(22);
    assert.equal(await refOn(fx.remote, stateRecordRef(22)), null);
  });

  it("a branch that moved on after the merge keeps the record too (all or none), and the branch is kept", async () => {
    const { lane, sha } = await mergedLane(23);
    const pusher = await fx.clone("pusher");
    await git(pusher, ["fetch", "-q", "origin", lane.branch]);
    await git(pusher, ["checkout", "-q", "-b", lane.branch, "FETCH_HEAD"]);
    const later = await commitFiles(pusher, { "later.txt": "later\n" }, "later");
    await git(pusher, ["push", "-q", "origin", lane.branch]);
    const record = await refOn(fx.remote, stateRecordRef(23));
    const report = await ws.cleanupLane(lane, { deleteRemote: true, base: "main", mergedHead: sha, removeState: 23 });
    assert.equal(report.stateRemoved, false);
    assert.equal(report.remoteBranch, "kept");
    assert.equal(await refOn(fx.remote, `refs/heads/${lane.branch}`), later);
    assert.equal(await refOn(fx.remote, stateRecordRef(23)), record);
  });

  it("the implemented record goes in the branch's push: one push moves both", async () => {
    await ws.fetchBase("main");
    const lane = await ws.cutLane(24, "agent/24-x", "main");
    await ws.writeState(24, () => stateFor(24, { branch: lane.branch }));
    const sha = await commitFiles(lane.path, { "t24.txt": "work\n" }, "work");
    const record = stateFor(24, { branch: lane.branch, state: "implemented", title: "Implemented" });
    const { value: pushed, calls } = await remoteCalls(() => ws.push(lane, { record }));
    assert.equal(pushed.ok, true);
    assert.equal(pushed.recorded, true);
    assert.deepEqual(calls, ["push"]);
    assert.equal(await refOn(fx.remote, `refs/heads/${lane.branch}`), sha);
    assert.equal((await workspaceOn(await fx.clone("reader")).readState(24))?.state, "implemented");
  });

  it("a record another Host moved: the branch is pushed alone and the record left whole for the usual write", async () => {
    await ws.fetchBase("main");
    const lane = await ws.cutLane(25, "agent/25-x", "main");
    await ws.writeState(25, () => stateFor(25, { branch: lane.branch }));
    await workspaceOn(await fx.clone("other")).writeState(25, (current) => ({ ...current!, title: "moved by another Host" }));
    const moved = await refOn(fx.remote, stateRecordRef(25));
    const sha = await commitFiles(lane.path, { "t25.txt": "work\n" }, "work");
    const pushed = await ws.push(lane, { record: stateFor(25, { branch: lane.branch, state: "implemented" }) });
    assert.equal(pushed.ok, true);
    assert.notEqual(pushed.recorded, true);
    assert.equal(await refOn(fx.remote, `refs/heads/${lane.branch}`), sha);
    assert.equal(await refOn(fx.remote, stateRecordRef(25)), moved);
  });

  it("a branch refused: the record does not move either, and the refusal reads as ever", async () => {
    await ws.fetchBase("main");
    const lane = await ws.cutLane(26, "agent/26-x", "main");
    await ws.writeState(26, () => stateFor(26, { branch: lane.branch }));
    const record = await refOn(fx.remote, stateRecordRef(26));
    // Someone else's work on the branch first: the lease ("must not exist") refuses ours.
    const person = await fx.clone("person");
    await commitFiles(person, { "p.txt": "p\n" }, "theirs");
    await git(person, ["push", "-q", "origin", "HEAD:refs/heads/agent/26-x"]);
    await commitFiles(lane.path, { "t26.txt": "work\n" }, "work");
    const pushed = await ws.push(lane, { record: stateFor(26, { branch: lane.branch, state: "implemented" }) });
    assert.equal(pushed.ok, false);
    assert.notEqual(pushed.recorded, true);
    assert.match(pushed.detail, /stale info|fetch first|rejected/);
    assert.equal(await refOn(fx.remote, stateRecordRef(26)), record);
  });
});
