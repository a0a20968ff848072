import { strict as assert } from "node:assert";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import type { Lane } from "../../../src/ports/workspace";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { workspaceOn } from "./support/workspace-fixture";

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

describe("workspace: a Lane's rebase replayed without git rebase (ADR 0483)", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;
  let root: string;

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n", "src/a.txt": "one\ntwo\nthree\n" } });
    root = await fx.clone("target");
    ws = workspaceOn(root);
    // A base this clone fetched (loose objects), as every Lane after a Run's first round starts on.
    await fx.pushCommit({ "src/b.txt": "b\n" }, "a neighbour's merge");
    await ws.fetchBase("main");
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  async function laneWith(ticket: number, files: Record<string, string>, message: string): Promise<{ lane: Lane; tip: string }> {
    const lane = await ws.cutLane(ticket, `agent/${ticket}-x`, "main");
    return { lane, tip: await commitFiles(lane.path, files, message) };
  }

  it("up to date: answered from the loose objects, no git process", async () => {
    const { lane, tip } = await laneWith(20, { "src/a.txt": "mine\n" }, "edit a");
    let result: string | undefined;
    assert.deepEqual(await commandsOf(async () => (result = await ws.rebaseOnto(lane, "main"))), []);
    assert.equal(result, "up-to-date");
    assert.equal(await ws.headSha(lane), tip);
  });

  it("one commit on a moved base: merge-tree, the commit written here, reset --keep; the same commit git rebase makes", async () => {
    const message = "#21 Name the currency  \n\n\nbody line   \n\n";
    const { lane, tip } = await laneWith(21, { "src/c.txt": "mine\n" }, message);
    await git(root, ["branch", "twin", tip]);
    await fx.pushCommit({ "src/d.txt": "theirs\n", "README.md": "moved\n" }, "another neighbour's merge");
    await ws.fetchBase("main");

    let result: string | undefined;
    const commands = await commandsOf(async () => (result = await ws.rebaseOnto(lane, "main")));
    assert.equal(result, "clean");
    assert.deepEqual(commands, ["merge-tree", "reset"]);

    const head = await ws.headSha(lane);
    assert.equal(await git(lane.path, ["rev-parse", "HEAD^"]), await git(root, ["rev-parse", "origin/main"]));
    assert.equal(await git(lane.path, ["status", "--porcelain"]), "", "index and files follow the new commit");
    assert.equal(await readFile(join(lane.path, "src/d.txt"), "utf8"), "theirs\n");
    assert.equal(await readFile(join(lane.path, "src/c.txt"), "utf8"), "mine\n");
    assert.equal(await git(lane.path, ["rev-parse", "--abbrev-ref", "HEAD"]), "agent/21-x");
    await git(root, ["fsck", "--strict", "--no-dangling"]);

    // git rebase of the same commit at the same second writes the same object.
    const committer = /^committer .* (\d+ [+-]\d{4})$/m.exec(await git(root, ["cat-file", "commit", head]))![1]!;
    const twin = join(fx.root, "twin");
    await git(root, ["worktree", "add", "-q", twin, "twin"]);
    await git(twin, ["rebase", "-q", "origin/main"], { GIT_COMMITTER_DATE: committer });
    assert.equal(await git(twin, ["rev-parse", "HEAD"]), head);
  });

  it("a conflict still stops in git rebase, for the conflict Stage", async () => {
    const { lane } = await laneWith(22, { "src/a.txt": "mine\n" }, "edit a");
    await fx.pushCommit({ "src/a.txt": "theirs\n" }, "conflicting change");
    await ws.fetchBase("main");
    let result: string | undefined;
    const commands = await commandsOf(async () => (result = await ws.rebaseOnto(lane, "main")));
    assert.equal(result, "conflict");
    // Both changed src/a.txt: no merge is tried here, git rebase stops as it always did.
    assert.deepEqual(commands, ["merge-base", "rebase", "rev-parse"]);
    assert.equal(await ws.rebaseInProgress(lane), true);
    assert.deepEqual(await ws.conflictedFiles(lane), ["src/a.txt"]);
  });

  it("a conflict only the merge finds (both renamed one file, each its own way) goes on to git rebase", async () => {
    const lane = await ws.cutLane(26, "agent/26-x", "main");
    await git(lane.path, ["mv", "src/a.txt", "src/mine.txt"]);
    await git(lane.path, ["commit", "-q", "-m", "renames a"]);
    const other = await fx.clone("renamer");
    await git(other, ["mv", "src/a.txt", "src/theirs.txt"]);
    await git(other, ["commit", "-q", "-m", "renames a otherwise"]);
    await git(other, ["push", "-q", "origin", "main"]);
    await ws.fetchBase("main");
    let result: string | undefined;
    const commands = await commandsOf(async () => (result = await ws.rebaseOnto(lane, "main")));
    assert.equal(result, "conflict");
    assert.deepEqual(commands.slice(0, 3), ["merge-tree", "merge-base", "rebase"]);
    assert.ok(!commands.includes("reset"), commands.join(" "));
    assert.equal(await ws.rebaseInProgress(lane), true);
    assert.equal(await ws.abortRebaseInProgress(lane), true);
  });

  it("two commits are git rebase's", async () => {
    const { lane } = await laneWith(23, { "src/c.txt": "one\n" }, "first");
    await commitFiles(lane.path, { "src/e.txt": "two\n" }, "second");
    await fx.pushCommit({ "src/d.txt": "theirs\n" }, "unrelated");
    await ws.fetchBase("main");
    let result: string | undefined;
    const commands = await commandsOf(async () => (result = await ws.rebaseOnto(lane, "main")));
    assert.equal(result, "clean");
    assert.ok(commands.includes("rebase"), commands.join(" "));
    assert.equal(await ws.commitsAhead(lane, "main"), 2);
  });

  it("a base commit with the same change is git rebase's, which drops the Lane's copy", async () => {
    const { lane } = await laneWith(24, { "src/c.txt": "same\n" }, "the change");
    await fx.pushCommit({ "src/c.txt": "same\n" }, "the same change, merged elsewhere");
    await fx.pushCommit({ "src/d.txt": "later\n" }, "later");
    await ws.fetchBase("main");
    let result: string | undefined;
    const commands = await commandsOf(async () => (result = await ws.rebaseOnto(lane, "main")));
    assert.equal(result, "clean");
    assert.ok(commands.includes("rebase"), commands.join(" "));
    assert.equal(await ws.commitsAhead(lane, "main"), 0);
  });

  it("a local change in a file the base changed: reset --keep refuses, and git rebase refuses as before", async () => {
    const { lane } = await laneWith(25, { "src/c.txt": "mine\n" }, "edit c");
    await fx.pushCommit({ "README.md": "moved\n" }, "moves the readme");
    await ws.fetchBase("main");
    await writeFile(join(lane.path, "README.md"), "scribbled\n");
    const before = await ws.headSha(lane);
    await assert.rejects(ws.rebaseOnto(lane, "main"));
    assert.equal(await ws.headSha(lane), before);
    assert.equal(await readFile(join(lane.path, "README.md"), "utf8"), "scribbled\n");
  });
});
