import { strict as assert } from "node:assert";
import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { deleteRefsFromFiles, removeLaneFromFiles } from "../../../src/adapters/git/cleanup-from-files";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { cutLane, fetchBase } from "../../../src/adapters/git/worktrees";
import type { Lane } from "../../../src/ports/workspace";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

/** The git processes `work` starts. */
async function gitCount<T>(work: () => Promise<T>): Promise<{ value: T; calls: number }> {
  let calls = 0;
  const unwatch = watchGitProcesses(() => (calls += 1));
  try {
    return { value: await work(), calls };
  } finally {
    unwatch();
  }
}

/** Every path under the clone's refs, logs and worktrees, and whether the Lane's folder is there: what a clean-up changes. */
async function shape(root: string, lane: Lane): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = join(dir, e.name);
      out.push(`${relative(root, p)}${e.isDirectory() ? "/" : ""}`);
      if (e.isDirectory()) await walk(p);
    }
  };
  for (const d of [".git/refs", ".git/logs", ".git/worktrees"]) await walk(join(root, d));
  const laneThere = await stat(lane.path).then(
    () => true,
    () => false,
  );
  return [...out.sort(), `lane folder: ${laneThere}`];
}

describe("workspace: a merged Lane's clean-up written to files (ADR 0494)", () => {
  let fx: RemoteFixture;
  const made: RepoContext[] = [];

  async function clone(name: string): Promise<RepoContext> {
    const root = await fx.clone(name);
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
    const ctx = { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin" }) };
    made.push(ctx);
    await fetchBase(ctx, "main");
    return ctx;
  }

  /** A Lane with a commit, its tracking ref, uncommitted and untracked work, and a second Lane beside it. */
  async function laneIn(ctx: RepoContext): Promise<{ lane: Lane; sha: string }> {
    await cutLane(ctx, 8, "agent/8-beside", "main");
    const lane = await cutLane(ctx, 7, "agent/7-x", "main");
    const sha = await commitFiles(lane.path, { "src/w.txt": "w\n" }, "work");
    await git(ctx.root, ["update-ref", "refs/remotes/origin/agent/7-x", sha]);
    await writeFile(join(lane.path, "README.md"), "changed, not committed\n");
    await mkdir(join(lane.path, "untracked", "empty"), { recursive: true });
    await writeFile(join(lane.path, "untracked", "u.txt"), "u\n");
    return { lane, sha };
  }

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
  });
  afterEach(async () => {
    for (const ctx of made.splice(0)) await ctx.net.dispose();
    await fx.cleanup();
  });

  it("removes the worktree and deletes both refs as `worktree remove --force` and `update-ref --stdin` do, with no process", async () => {
    const byGit = await clone("by-git");
    const byFiles = await clone("by-files");
    const a = await laneIn(byGit);
    const b = await laneIn(byFiles);
    assert.deepEqual(await shape(byFiles.root, b.lane), await shape(byGit.root, a.lane));

    // What cleanupLane ran before: the same two git commands through the Run's own runner.
    assert.equal((await byGit.git.raw(["worktree", "remove", "--force", a.lane.path], { cwd: byGit.root })).code, 0);
    const drop = `delete refs/heads/agent/7-x ${a.sha}\ndelete refs/remotes/origin/agent/7-x\n`;
    assert.equal((await byGit.git.raw(["update-ref", "--stdin"], { cwd: byGit.root, input: drop })).code, 0);
    const { calls } = await gitCount(async () => {
      assert.equal(await removeLaneFromFiles(byFiles, b.lane.path), true);
      assert.equal(
        await deleteRefsFromFiles(byFiles, [
          { ref: "refs/heads/agent/7-x", old: b.sha },
          { ref: "refs/remotes/origin/agent/7-x", old: null },
        ]),
        true,
      );
    });
    assert.equal(calls, 0);
    assert.deepEqual(await shape(byFiles.root, b.lane), await shape(byGit.root, a.lane));
    // git reads the result as its own: no record to prune, the Lane beside still listed, the refs gone.
    assert.equal(await git(byFiles.root, ["worktree", "prune", "--dry-run", "-v"]), "");
    assert.match(await git(byFiles.root, ["worktree", "list", "--porcelain"]), /agent\/8-beside/);
    assert.equal(await git(byFiles.root, ["for-each-ref", "refs/heads/agent/7-x", "refs/remotes/origin/agent/"]), "");
    await git(byFiles.root, ["fsck", "--no-progress"]);
  });

  it("the last Lane's record folder goes too, as git's does", async () => {
    const byFiles = await clone("alone");
    const lane = await cutLane(byFiles, 9, "agent/9-x", "main");
    assert.equal(await removeLaneFromFiles(byFiles, lane.path), true);
    assert.deepEqual(await readdir(join(byFiles.root, ".git")).then((e) => e.includes("worktrees")), false);
  });

  it("leaves git to it, changing nothing, where the files are not certain", async () => {
    const ctx = await clone("unsure");
    const { lane, sha } = await laneIn(ctx);
    const before = await shape(ctx.root, lane);
    const branch = "refs/heads/agent/7-x";
    const track = "refs/remotes/origin/agent/7-x";

    // A locked worktree: git refuses a single --force.
    await git(ctx.root, ["worktree", "lock", lane.path]);
    assert.equal(await removeLaneFromFiles(ctx, lane.path), false);
    await git(ctx.root, ["worktree", "unlock", lane.path]);
    // A folder whose record does not name it back (a person moved it by hand).
    await writeFile(join(ctx.root, ".git", "worktrees", "ticket-7", "gitdir"), "/elsewhere/.git\n");
    assert.equal(await removeLaneFromFiles(ctx, lane.path), false);
    await writeFile(join(ctx.root, ".git", "worktrees", "ticket-7", "gitdir"), `${join(lane.path, ".git")}\n`);

    // The branch not at its lease, a ref locked by another writer, packed-refs locked, a tracking ref not there.
    assert.equal(await deleteRefsFromFiles(ctx, [{ ref: branch, old: "0".repeat(40) }]), false);
    await writeFile(join(ctx.root, ".git", `${track}.lock`), "");
    assert.equal(
      await deleteRefsFromFiles(ctx, [
        { ref: branch, old: sha },
        { ref: track, old: null },
      ]),
      false,
    );
    await git(ctx.root, ["update-ref", "-d", track]).catch(() => undefined);
    await rm(join(ctx.root, ".git", `${track}.lock`));
    await git(ctx.root, ["update-ref", track, sha]);
    await writeFile(join(ctx.root, ".git", "packed-refs.lock"), "");
    assert.equal(await deleteRefsFromFiles(ctx, [{ ref: branch, old: sha }]), false);
    await rm(join(ctx.root, ".git", "packed-refs.lock"));
    assert.equal(
      await deleteRefsFromFiles(ctx, [
        { ref: branch, old: sha },
        { ref: "refs/remotes/origin/agent/none", old: null },
      ]),
      false,
    );
    assert.deepEqual(await shape(ctx.root, lane), before);

    // A packed branch: git rewrites packed-refs, so git deletes it.
    await git(ctx.root, ["pack-refs", "--all"]);
    await git(ctx.root, ["update-ref", track, sha]);
    assert.equal(await deleteRefsFromFiles(ctx, [{ ref: branch, old: sha }]), false);
    assert.equal(await git(ctx.root, ["rev-parse", branch]), sha);
  });
});
