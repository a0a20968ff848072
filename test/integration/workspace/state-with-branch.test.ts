/**
 * After a merge the ticket's State record and its branch go in one push, all or none, each under
 * its own lease (ADR 0431); a lease that refuses moves nothing and the record is removed the usual way.
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
});
