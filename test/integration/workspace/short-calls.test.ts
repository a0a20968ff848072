import { strict as assert } from "node:assert";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { baseTouches } from "../../../src/adapters/git/base-overlap";
import { cleanupLane, headSha } from "../../../src/adapters/git/lane-ops";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { cutLane, fetchBase } from "../../../src/adapters/git/worktrees";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

/** The git subcommands `work` starts (the word after the hardening's `-c` pairs). */
async function gitCalls<T>(work: () => Promise<T>): Promise<{ value: T; calls: string[] }> {
  const calls: string[] = [];
  const unwatch = watchGitProcesses((args) => {
    const rest = [...args];
    while (rest[0] === "-c") rest.splice(0, 2);
    calls.push(rest.slice(0, 2).join(" "));
  });
  try {
    return { value: await work(), calls };
  } finally {
    unwatch();
  }
}

describe("workspace: a Lane's short git calls, fewer (ADR 0477)", () => {
  let fx: RemoteFixture;
  let ctx: RepoContext;

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
    const root = await fx.clone("target");
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
    ctx = { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin" }) };
    await fetchBase(ctx, "main");
  });
  afterEach(async () => {
    await ctx.net.dispose();
    await fx.cleanup();
  });

  it("headSha reads the Lane's HEAD afresh each time without git, and asks git whenever the files are not the plain shape", async () => {
    const lane = await cutLane(ctx, 3, "agent/3-x", "main");
    const read = async () => gitCalls(() => headSha(ctx, lane));

    let got = await read();
    assert.equal(got.value, await git(lane.path, ["rev-parse", "HEAD"]));
    assert.deepEqual(got.calls, []);
    // An agent's commit: the next read sees it (nothing kept from the read before).
    const first = await commitFiles(lane.path, { "a.txt": "a\n" }, "one");
    got = await read();
    assert.deepEqual([got.value, got.calls], [first, []]);
    // Packed: no loose file to read, so git is asked, and says the same.
    await git(ctx.root, ["pack-refs", "--all"]);
    got = await read();
    assert.deepEqual([got.value, got.calls], [first, ["rev-parse HEAD"]]);
    // Committed again after the packing: the loose file is newer than the packed line, and wins, as in git.
    const second = await commitFiles(lane.path, { "b.txt": "b\n" }, "two");
    got = await read();
    assert.deepEqual([got.value, got.calls], [second, []]);
    // Detached: git is asked.
    await git(lane.path, ["checkout", "-q", "--detach", first]);
    got = await read();
    assert.deepEqual([got.value, got.calls], [first, ["rev-parse HEAD"]]);
  });

  it("clean-up at the merged head: the worktree removed and both refs deleted in one transaction, with no listing, prune, read or process", async () => {
    const lane = await cutLane(ctx, 4, "agent/4-x", "main");
    const sha = await commitFiles(lane.path, { "w.txt": "w\n" }, "work");
    const track = "refs/remotes/origin/agent/4-x";
    await git(ctx.root, ["update-ref", track, sha]);

    const { value: report, calls } = await gitCalls(() => cleanupLane(ctx, lane, { deleteRemote: true, base: "main", mergedHead: sha, deletedAlready: true }));
    assert.deepEqual([report.worktree, report.localBranch, report.remoteBranch], ["removed", "deleted", "deleted"]);
    // Both written to the clone's files since ADR 0494; git's transaction is the fallback.
    assert.deepEqual(calls, []);
    assert.equal(await git(ctx.root, ["for-each-ref", "refs/heads/agent/", "refs/remotes/origin/agent/"]), "");
    assert.equal((await git(ctx.root, ["worktree", "list", "--porcelain"])).includes(lane.path), false);
  });

  it("clean-up when the branch moved past the merged head: the transaction changes nothing, and the branch is read and kept as before", async () => {
    const lane = await cutLane(ctx, 5, "agent/5-x", "main");
    const merged = await commitFiles(lane.path, { "w.txt": "w\n" }, "work");
    const later = await commitFiles(lane.path, { "l.txt": "later\n" }, "work after the merge, nowhere else");
    const track = "refs/remotes/origin/agent/5-x";
    await git(ctx.root, ["update-ref", track, merged]);

    const report = await cleanupLane(ctx, lane, { deleteRemote: true, base: "main", mergedHead: merged, deletedAlready: true });
    assert.deepEqual([report.worktree, report.localBranch, report.remoteBranch], ["removed", "kept", "deleted"]);
    assert.equal(await git(ctx.root, ["rev-parse", "refs/heads/agent/5-x"]), later);
    // The remote's copy was deleted already, so its tracking ref goes, as before.
    assert.equal(await git(ctx.root, ["for-each-ref", track]), "");
  });

  it("a Lane prunes stale worktree records on the process's first cut, and later only when git lists one as prunable", async () => {
    const first = await gitCalls(() => cutLane(ctx, 6, "agent/6-x", "main"));
    assert.ok(first.calls.includes("worktree prune"), first.calls.join(", "));
    const second = await gitCalls(() => cutLane(ctx, 7, "agent/7-x", "main"));
    assert.equal(second.calls.includes("worktree prune"), false, second.calls.join(", "));

    // A person's worktree, its directory deleted by hand: git lists it as prunable, and the next cut prunes it.
    const gone = join(ctx.root, ".worktrees", "by-hand");
    await mkdir(join(ctx.root, ".worktrees"), { recursive: true });
    await git(ctx.root, ["worktree", "add", "-q", "-b", "by-hand", gone, "HEAD"]);
    await rm(gone, { recursive: true, force: true });
    const third = await gitCalls(() => cutLane(ctx, 8, "agent/8-x", "main"));
    assert.ok(third.calls.includes("worktree prune"), third.calls.join(", "));
    assert.equal((await git(ctx.root, ["worktree", "list", "--porcelain"])).includes(gone), false);
  });

  it("baseTouches: no diff while both sides are loose, moved or not (ADR 0488), and a local-only base still diffed by git", async () => {
    const lane = await cutLane(ctx, 9, "agent/9-x", "main");
    await commitFiles(lane.path, { "mine.txt": "mine\n" }, "lane work");
    const still = await gitCalls(() => baseTouches(ctx, lane, "main"));
    // Both sides' commits and trees loose: read from them, no diff (ADR 0488).
    assert.deepEqual([still.value, still.calls], [false, []]);

    const other = await fx.clone("neighbour");
    await commitFiles(other, { "mine.txt": "theirs\n" }, "a neighbour's merge");
    await git(other, ["push", "-q", "origin", "HEAD:main"]);
    await fetchBase(ctx, "main");
    const moved = await gitCalls(() => baseTouches(ctx, lane, "main"));
    assert.deepEqual([moved.value, moved.calls], [true, []]);

    // No remote copy of the base: git's, the first diff fails, and the local one is read as before.
    await git(ctx.root, ["branch", "local-only", "refs/remotes/origin/main"]);
    const local = await gitCalls(() => baseTouches(ctx, lane, "local-only"));
    assert.deepEqual([local.value, local.calls.filter((c) => c === "diff --name-only").length], [true, 3]);
  });
});
