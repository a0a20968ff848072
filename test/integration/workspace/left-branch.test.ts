/**
 * A fresh Lane and an old local branch for the same ticket (ADR 0121): started on, moved up to the
 * fresh base, only when nothing on it could be lost and nobody's work is adopted; otherwise refused,
 * saying why, with nothing moved. Real git, a bare remote.
 */
import { strict as assert } from "node:assert";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { Refusal } from "../../../src/core/errors";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { workspaceOn } from "./support/workspace-fixture";

function refusedWith(text: RegExp) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof Refusal, `expected a Refusal, got ${String(e)}`);
    assert.equal(e.reason, "branch-in-way");
    assert.match(e.message, text);
    return true;
  };
}

describe("workspace: an old local branch for the ticket", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;
  const B = "agent/3-x";

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
    ws = workspaceOn(await fx.clone("target"));
    await ws.fetchBase("main");
  });
  afterEach(async () => fx.cleanup());

  it("its worktree, clean, with nothing beyond the base: the Lane starts on it, moved up to the fresh base", async () => {
    const first = await ws.cutLane(3, B, "main");
    const report = await ws.leftBranch(3, B, "main");
    assert.equal(report?.notReusable, null);
    const moved = await fx.pushCommit({ "NEWS.md": "base moved\n" }, "base moves on");
    await ws.fetchBase("main");
    const again = await ws.cutLane(3, B, "main");
    assert.deepEqual(again, first);
    assert.equal(await ws.headSha(again), moved);
    assert.ok(existsSync(join(again.path, "NEWS.md")));
  });

  it("the branch alone (no worktree) at an older base: started on, with a worktree, at the fresh base", async () => {
    await git(ws.root, ["branch", B]);
    const moved = await fx.pushCommit({ "NEWS.md": "base moved\n" }, "base moves on");
    await ws.fetchBase("main");
    const lane = await ws.cutLane(3, B, "main");
    assert.equal(lane.path, ws.lanePath(3));
    assert.equal(await ws.headSha(lane), moved);
  });

  it("untracked or uncommitted changes in its worktree: refused, and the file stays", async () => {
    const lane = await ws.cutLane(3, B, "main");
    writeFileSync(join(lane.path, "draft.txt"), "mine\n");
    const report = await ws.leftBranch(3, B, "main");
    assert.equal(report?.notReusable?.in, "local");
    assert.match(report!.drop, /worktree remove --force /);
    await assert.rejects(ws.cutLane(3, B, "main"), refusedWith(/has uncommitted or untracked changes.*worktree remove --force /));
    assert.equal(readFileSync(join(lane.path, "draft.txt"), "utf8"), "mine\n");
  });

  it("a commit of its own, even one pushed: refused, and the branch is not moved", async () => {
    const lane = await ws.cutLane(3, B, "main");
    const tip = await commitFiles(lane.path, { "w.txt": "work\n" }, "work");
    await assert.rejects(ws.cutLane(3, B, "main"), refusedWith(/holds 1 commit\(s\) that are not on the base, 1 of them on no remote/));
    await git(lane.path, ["push", "-q", "origin", B]);
    await assert.rejects(ws.cutLane(3, B, "main"), refusedWith(/holds 1 commit\(s\) that are not on the base\. /));
    assert.equal(await git(ws.root, ["rev-parse", B]), tip);
  });

  it("nothing beyond the base, but the remote has a copy: refused as a remote branch in the way", async () => {
    await ws.cutLane(3, B, "main");
    await git(ws.root, ["push", "-q", "origin", B]);
    await assert.rejects(ws.cutLane(3, B, "main"), refusedWith(/remote already has a branch `agent\/3-x`/));
  });
});
