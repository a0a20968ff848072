import { strict as assert } from "node:assert";
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, makeRemote } from "../../support/git-fixtures";
import { workspaceOn } from "./support/workspace-fixture";

const NULL_ID = "0".repeat(40);

/** What a `git worktree add` killed before its checkout leaves: the worktree's HEAD is the null id. */
async function killMidAdd(root: string, id: string): Promise<void> {
  await writeFile(join(root, ".git", "worktrees", id, "HEAD"), `${NULL_ID}\n`);
}

async function rawFetch(root: string): Promise<string> {
  return git(root, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "origin", "+refs/heads/main:refs/remotes/origin/main"]).then(
    () => "ok",
    (e: unknown) => String(e),
  );
}

describe("workspace: what a git killed with its Run leaves in the clone (half-made lanes, ref locks)", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;
  const branch = "agent/3-half-made";

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
    ws = workspaceOn(await fx.clone("target"));
    await ws.fetchBase("main");
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("no longer stops the Run's fetch (update-ref), and is moved aside (kept) when the next Lane is made, which starts on its branch", async () => {
    const lane = await ws.cutLane(3, branch, "main");
    await killMidAdd(ws.root, "ticket-3");
    assert.match(await rawFetch(ws.root), /bad object worktrees\/ticket-3\/HEAD/, "git itself cannot fetch in this clone any more");
    const moved = await fx.pushCommit({ "README.md": "main moved on\n" }, "main moves");

    assert.equal(await ws.fetchBase("main"), "remote");
    assert.equal(await git(ws.root, ["rev-parse", "origin/main"]), moved);
    assert.ok(existsSync(lane.path), "a fetch mends nothing: the Lane does");

    const again = await ws.cutLane(3, branch, "main");
    assert.equal(await rawFetch(ws.root), "ok");
    const kept = readdirSync(join(ws.root, ".git", "ticket-runner", "half-made-worktrees"));
    assert.equal(kept.length, 1);
    assert.match(kept[0]!, /-ticket-3$/);
    assert.equal(
      readdirSync(join(ws.root, ".worktrees")).filter((n) => n.startsWith(".half-made-") && n.endsWith("-ticket-3")).length,
      1,
      "the directory is kept too",
    );
    assert.equal(await git(again.path, ["rev-parse", "--abbrev-ref", "HEAD"]), branch);
    assert.equal(await git(again.path, ["rev-parse", "HEAD"]), moved);
  });

  it("is moved aside (kept) when its ticket is resumed, which makes the lane again on its branch", async () => {
    const lane = await ws.cutLane(3, branch, "main");
    await killMidAdd(ws.root, "ticket-3");
    const resumed = await ws.resumeLane(3, branch, "main");
    assert.equal(resumed.lane?.path, lane.path);
    assert.equal(await git(lane.path, ["rev-parse", "--abbrev-ref", "HEAD"]), branch);
    assert.equal(readdirSync(join(ws.root, ".git", "ticket-runner", "half-made-worktrees")).length, 1);
    assert.equal(await rawFetch(ws.root), "ok");
  });

  it("a tracking ref's lock left by a killed fetch is moved aside (kept), and the fetch goes through", async () => {
    const moved = await fx.pushCommit({ "README.md": "main moved on\n" }, "main moves");
    const lock = join(ws.root, ".git", "refs", "remotes", "origin", "main.lock");
    await writeFile(lock, "");
    assert.match(await rawFetch(ws.root), /Unable to create '.*main\.lock': File exists/, "git itself cannot update origin/main any more");

    await ws.fetchBase("main");
    assert.equal(await git(ws.root, ["rev-parse", "origin/main"]), moved);
    assert.equal(existsSync(lock), false);
    assert.equal(readdirSync(join(ws.root, ".git", "ticket-runner", "stale-locks")).filter((n) => n.endsWith("main.lock")).length, 1, "kept, not deleted");
  });

  it("a worktree outside .worktrees (a person's) is never touched: the Run fetches and makes its Lanes beside it", async () => {
    const mine = join(fx.root, "persons-worktree");
    await git(ws.root, ["worktree", "add", "-q", "-b", "mine", mine, "HEAD"]);
    await killMidAdd(ws.root, "persons-worktree");
    assert.equal(await ws.fetchBase("main"), "remote");
    await ws.cutLane(4, "agent/4-beside", "main");
    assert.equal((await readFile(join(ws.root, ".git", "worktrees", "persons-worktree", "HEAD"), "utf8")).trim(), NULL_ID);
    assert.ok(existsSync(mine));
    assert.match(await rawFetch(ws.root), /bad object worktrees\/persons-worktree\/HEAD/, "still git's own words, for the person");
  });
});
