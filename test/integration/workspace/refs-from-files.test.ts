import { strict as assert } from "node:assert";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { listWorktrees, listWorktreesByGit, resolveRefs } from "../../../src/adapters/git/repo";
import type { Lane } from "../../../src/ports/workspace";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV, workspaceOn } from "./support/workspace-fixture";

/** The git commands (the word after the `-c` options) a call starts. */
async function commandsOf(run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = watchGitProcesses((args) => {
    const i = args.findIndex((a, j) => a !== "-c" && args[j - 1] !== "-c");
    seen.push(args[i] ?? "");
  });
  try {
    await run();
  } finally {
    stop();
  }
  return seen;
}

/** git's own answer to resolveRefs' question, one rev-parse each. */
async function gitSays(cwd: string, revs: string[]): Promise<(string | null)[]> {
  return Promise.all(revs.map((r) => git(cwd, ["rev-parse", "--verify", "--quiet", `${r}^{commit}`]).catch(() => null)));
}

describe("workspace: refs and a Lane's commit count read from files (ADR 0488)", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;
  let ctx: RepoContext;
  let root: string;
  let lane: Lane;
  let tip: string;

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
    root = await fx.clone("target");
    ws = workspaceOn(root);
    // A base this clone fetched (loose objects), as every Lane after a Run's first round starts on.
    await fx.pushCommit({ "src/b.txt": "b\n" }, "a neighbour's merge");
    await ws.fetchBase("main");
    lane = await ws.cutLane(30, "agent/30-x", "main");
    await commitFiles(lane.path, { "src/c.txt": "one\n" }, "first");
    tip = await commitFiles(lane.path, { "src/d.txt": "two\n" }, "second");
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
    ctx = { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin" }) };
  });
  afterEach(async () => {
    await ctx.net.dispose();
    await fx.cleanup();
  });

  it("loose refs, loose commits, a Lane's HEAD and absent names: git's answers, no process", async () => {
    const revs = [
      "refs/remotes/origin/main",
      "refs/heads/agent/30-x",
      "refs/heads/nothing",
      "refs/remotes/origin/agent/30-x",
      tip,
      "0123456789abcdef0123456789abcdef01234567",
    ];
    let read: (string | null)[] = [];
    assert.deepEqual(await commandsOf(async () => (read = await resolveRefs(ctx, revs))), []);
    assert.deepEqual(read, await gitSays(root, revs));
    const inLane = ["HEAD", "refs/remotes/origin/main"];
    assert.deepEqual(await commandsOf(async () => (read = await resolveRefs(ctx, inLane, lane.path))), []);
    assert.deepEqual(read, await gitSays(lane.path, inLane));
    assert.equal(read[0], tip);
  });

  it("anything not certain from files is git's, with the same answers: packed commits read from the pack, a tag, another lookup rule's ref, the main HEAD, replace refs", async () => {
    await git(root, ["tag", "-a", "-m", "annotated", "v1", tip]);
    // `refs/heads/shadow` names nothing itself, but git's next rule finds `refs/refs/heads/shadow`.
    await mkdir(join(root, ".git", "refs", "refs", "heads"), { recursive: true });
    await writeFile(join(root, ".git", "refs", "refs", "heads", "shadow"), `${tip}\n`);
    const asGit = async (revs: string[], why: string): Promise<void> => {
      let read: (string | null)[] = [];
      assert.deepEqual(await commandsOf(async () => (read = await resolveRefs(ctx, revs))), ["cat-file"], why);
      assert.deepEqual(read, await gitSays(root, revs), why);
    };
    await asGit(["refs/tags/v1"], "an annotated tag");
    await asGit(["refs/heads/shadow"], "another lookup rule's ref");
    await asGit(["HEAD"], "the main checkout's HEAD");
    await git(root, ["replace", tip, await git(root, ["rev-parse", "HEAD"])]);
    await asGit(["refs/heads/agent/30-x"], "replace refs");
    await git(root, ["replace", "-d", tip]);
    await git(root, ["repack", "-a", "-d", "-q"]);
    // Packed whole: the pack's index and the entry's type say it is a commit.
    const packedRevs = ["refs/heads/agent/30-x", "refs/heads/nothing", tip, "refs/remotes/origin/main"];
    let absent: (string | null)[] = [];
    assert.deepEqual(await commandsOf(async () => (absent = await resolveRefs(ctx, packedRevs))), [], "packed commits");
    assert.deepEqual(absent, await gitSays(root, packedRevs));
    await asGit(["refs/tags/v1"], "a packed tag");
    assert.deepEqual(await commandsOf(async () => (absent = await resolveRefs(ctx, ["0123456789abcdef0123456789abcdef01234567"]))), [], "in no pack's index");
    assert.deepEqual(absent, [null]);
    await writeFile(join(root, ".git", "objects", "info", "alternates"), `${join(root, "elsewhere")}\n`);
    await asGit(["0123456789abcdef0123456789abcdef01234567"], "an object alternates may hold");
  });

  it("commitsAhead: counted down the loose commits to the base, no process; git counts what is not one plain line", async () => {
    let ahead = -1;
    assert.deepEqual(await commandsOf(async () => (ahead = await ws.commitsAhead(lane, "main"))), []);
    assert.equal(ahead, 2);
    assert.equal(String(ahead), await git(lane.path, ["rev-list", "--count", "refs/remotes/origin/main..HEAD"]));

    // A merge on the Lane: git's count, with git's process.
    const side = await git(lane.path, ["rev-parse", "HEAD~1"]);
    await git(root, ["branch", "side", side]);
    const other = join(root, ".worktrees", "side");
    await git(root, ["worktree", "add", "-q", other, "side"]);
    await commitFiles(other, { "src/e.txt": "side\n" }, "side work");
    await git(lane.path, ["merge", "-q", "--no-edit", "side"]);
    assert.deepEqual(await commandsOf(async () => (ahead = await ws.commitsAhead(lane, "main"))), ["rev-list"]);
    assert.equal(String(ahead), await git(lane.path, ["rev-list", "--count", "refs/remotes/origin/main..HEAD"]));
    assert.equal(ahead, 4);
  });

  it("commitsAhead: a shallow clone is git's to count", async () => {
    await writeFile(join(root, ".git", "shallow"), `${await git(lane.path, ["rev-parse", "HEAD~1"])}\n`);
    let ahead = -1;
    assert.deepEqual(await commandsOf(async () => (ahead = await ws.commitsAhead(lane, "main"))), ["rev-list"]);
    assert.equal(ahead, 2, "the shallow commit is a root to git: both Lane commits, nothing of the base");
  });

  it("worktree list: git's entries from the records' files, no process; a record git would prune or a half-made one is git's to list", async () => {
    const detached = join(root, ".worktrees", "b-detached");
    await git(root, ["worktree", "add", "-q", "--detach", detached, "HEAD"]);
    await git(root, ["worktree", "add", "-q", "-b", "agent/31-y", join(root, ".worktrees", "a-second"), "refs/remotes/origin/main"]);
    await git(root, ["pack-refs", "--all"]);
    let listed: unknown[] = [];
    assert.deepEqual(await commandsOf(async () => (listed = await listWorktrees(ctx))), []);
    assert.equal(listed.length, 4);
    assert.deepEqual(listed, await listWorktreesByGit(ctx));

    // Its directory gone: git calls it prunable, and says so itself.
    await rm(detached, { recursive: true, force: true });
    assert.deepEqual(await commandsOf(async () => (listed = await listWorktrees(ctx))), ["worktree"]);
    assert.deepEqual(
      listed.map((e) => (e as { prunable: boolean }).prunable),
      [false, false, true, false],
    );
    await git(root, ["worktree", "prune"]);
    // A HEAD still the null id (a `worktree add` half-way): git's, for the mending that reads its answer.
    await writeFile(join(root, ".git", "worktrees", "a-second", "HEAD"), `${"0".repeat(40)}\n`);
    assert.deepEqual(await commandsOf(() => listWorktrees(ctx).catch(() => [])), ["worktree"]);
  });

  it("baseTouches: both sides' files read from the loose objects as diff --name-only lists them, no process; a merge on the base is git's", async () => {
    let touches: boolean | null = null;
    const ask = async (): Promise<string[]> => commandsOf(async () => (touches = await ws.baseTouches(lane, "main")));
    await commitFiles(lane.path, { "src/newdir/b.txt": "mine\n" }, "third");
    assert.deepEqual(await ask(), []);
    assert.equal(touches, false, "the base has not moved");

    // A new directory's other file, and a directory where the Lane has a file of that name: other files, file by file.
    await fx.pushCommit({ "src/newdir/a.txt": "theirs\n", "src/d.txt/inner.txt": "theirs\n" }, "a neighbour's merge");
    await ws.fetchBase("main");
    assert.deepEqual(await ask(), []);
    assert.equal(touches, false);

    await fx.pushCommit({ "src/newdir/b.txt": "theirs too\n" }, "a neighbour's merge of the same file");
    await ws.fetchBase("main");
    assert.deepEqual(await ask(), []);
    assert.equal(touches, true);

    // A merge commit on the base: git finds the merge base.
    const other = await fx.clone("merger");
    await git(other, ["checkout", "-q", "-b", "side"]);
    await commitFiles(other, { "side.txt": "side\n" }, "side");
    await git(other, ["checkout", "-q", "main"]);
    await git(other, ["merge", "-q", "--no-ff", "--no-edit", "side"]);
    await git(other, ["push", "-q", "origin", "main"]);
    await ws.fetchBase("main");
    assert.deepEqual(await ask(), ["diff", "diff"]);
    assert.equal(touches, true);
  });
});
