/**
 * Bad input, row "a worktree path that escapes the repository": a real clone with a bare remote,
 * the real git Workspace. Expected outcome: a Lane is only ever made inside the Target's
 * `.worktrees/`; a symlink that would lead it elsewhere, or a branch name that is really an
 * option, a path or a ref expression (from a State file, say), is refused with `bad-input`, and
 * nothing is created outside the repository.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { Refusal } from "../../../src/core/errors";
import { git, makeRemote, makeTempDir, type RemoteFixture } from "../../support/git-fixtures";
import { workspaceOn } from "../../integration/workspace/support/workspace-fixture";
import { record } from "../support/figures";

const TEST = "test/reliability/quick/worktree-escape.test.ts";
const PWNED = "/tmp/tr-pwned-branch";

const BAD_BRANCHES = [
  "--upload-pack=touch /tmp/tr-pwned-branch",
  "-b",
  "../../../etc/passwd",
  "agent/1-x/../../../outside",
  "@{-1}",
  "agent/1-x\nmain",
  "agent/1-x; touch /tmp/tr-pwned-branch",
  "agent/1-$(touch /tmp/tr-pwned-branch)",
  "agent/1-x.lock",
  "agent//1",
  "",
];

function isBadInput(e: unknown): boolean {
  return e instanceof Refusal && e.reason === "bad-input";
}

describe("reliability: worktree paths and branch names that would escape the repository", function () {
  this.timeout(60_000);
  let fx: RemoteFixture;
  let clone: string;
  let ws: GitWorkspace;
  let outside: string;

  beforeEach(async () => {
    await rm(PWNED, { force: true });
    fx = await makeRemote();
    clone = await fx.clone("target");
    ws = workspaceOn(clone);
    outside = await makeTempDir("tr-rel-outside-");
    await ws.fetchBase("main");
  });
  afterEach(async () => {
    await fx.cleanup();
    await rm(outside, { recursive: true, force: true });
  });

  it(".worktrees as a symlink to a directory outside: refused, nothing made there", async () => {
    symlinkSync(outside, join(clone, ".worktrees"));
    await assert.rejects(
      ws.cutLane(1, ws.branchFor(1, "escape"), "main"),
      (e: unknown) => isBadInput(e) && /outside the repository/.test((e as Error).message),
    );
    assert.deepEqual(readdirSync(outside), []);
  });

  it(".worktrees/ticket-<n> as a symlink outside: refused, nothing made there", async () => {
    mkdirSync(join(clone, ".worktrees"));
    symlinkSync(outside, join(clone, ".worktrees", "ticket-2"));
    await assert.rejects(ws.cutLane(2, ws.branchFor(2, "escape"), "main"), isBadInput);
    assert.deepEqual(readdirSync(outside), []);
  });

  it("a symlink chain (.worktrees -> inside dir -> outside) is followed and refused", async () => {
    mkdirSync(join(clone, "inner"));
    symlinkSync(outside, join(clone, "inner", "link"));
    symlinkSync(join(clone, "inner", "link"), join(clone, ".worktrees"));
    await assert.rejects(ws.cutLane(3, ws.branchFor(3, "escape"), "main"), isBadInput);
    assert.deepEqual(readdirSync(outside), []);
  });

  it("branch names that are options, paths or ref expressions are refused on cut and on resume; nothing runs", async () => {
    // A person switched branches here once, so `@{-1}` means something to git.
    await git(clone, ["checkout", "-q", "-b", "scratch"]);
    await git(clone, ["checkout", "-q", "main"]);
    for (const branch of BAD_BRANCHES) {
      await assert.rejects(ws.cutLane(4, branch, "main"), isBadInput, `cut: ${JSON.stringify(branch)}`);
      await assert.rejects(ws.resumeLane(4, branch, "main"), isBadInput, `resume: ${JSON.stringify(branch)}`);
    }
    assert.ok(!existsSync(PWNED), "a branch name ran as a command");
    assert.ok(!existsSync(join(clone, ".worktrees", "ticket-4")), "a lane was made for a bad branch");
    // The good path still works afterwards, inside the repository.
    const lane = await ws.cutLane(4, ws.branchFor(4, "--upload-pack=touch /tmp/x ../../etc"), "main");
    assert.equal(lane.path, join(clone, ".worktrees", "ticket-4"));
    assert.equal(lane.branch, "agent/4-upload-pack-touch-tmp-x-etc");
    record("input.worktree-escape", {
      what: "worktrees never land outside the Target; bad branch names refused",
      test: TEST,
      inputs: 3 + BAD_BRANCHES.length * 2,
      losses: 0,
    });
  });
});
