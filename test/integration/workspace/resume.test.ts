import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { readlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { STALE_LOCK_MS } from "../../../src/adapters/git/stale-locks";
import { Refusal } from "../../../src/core/errors";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { waitFor } from "../../support/wait-for";
import { workspaceOn } from "./support/workspace-fixture";

/** Two Hosts on one Target: each its own clone of the same bare remote. */
describe("workspace: resuming a ticket's branch across two Hosts", () => {
  let fx: RemoteFixture;
  let a: GitWorkspace;
  let b: GitWorkspace;
  const branch = "agent/7-resume-me";

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n", "src/a.txt": "one\n" } });
    a = workspaceOn(await fx.clone("host-a"));
    b = workspaceOn(await fx.clone("host-b"));
    await a.fetchBase("main");
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  /** Host A works on ticket 7 and pushes; returns the lane and its pushed sha. */
  async function workOnA(): Promise<{ sha: string }> {
    const lane = await a.cutLane(7, branch, "main");
    const sha = await commitFiles(lane.path, { "src/a.txt": "two\n" }, "implement #7");
    assert.equal((await a.push(lane)).ok, true);
    return { sha };
  }

  it("made: no copy here, so one is built from the remote's", async () => {
    const { sha } = await workOnA();
    const got = await b.resumeLane(7, branch, "main");
    assert.equal(got.outcome, "made");
    assert.ok(got.lane);
    assert.equal(got.lane.path, b.lanePath(7));
    assert.equal(await b.headSha(got.lane), sha);
    assert.equal(await git(got.lane.path, ["rev-parse", "--abbrev-ref", "HEAD"]), branch);
  });

  it("kept: the copy here is ahead of the remote's, or was never pushed", async () => {
    await workOnA();
    const made = await b.resumeLane(7, branch, "main");
    const ahead = await commitFiles(made.lane!.path, { "src/b.txt": "b\n" }, "more work, not pushed");
    const kept = await b.resumeLane(7, branch, "main");
    assert.equal(kept.outcome, "kept");
    assert.equal(await b.headSha(kept.lane!), ahead);

    const lane = await a.cutLane(8, "agent/8-never-pushed", "main");
    const local = await commitFiles(lane.path, { "x.txt": "x\n" }, "local only");
    const again = await a.resumeLane(8, "agent/8-never-pushed", "main");
    assert.equal(again.outcome, "kept");
    assert.equal(await a.headSha(again.lane!), local);
  });

  it("kept, without a worktree: a local branch alone gets its worktree back", async () => {
    const lane = await a.cutLane(9, "agent/9-x", "main");
    const sha = await commitFiles(lane.path, { "x.txt": "x\n" }, "work");
    await git(a.root, ["worktree", "remove", "--force", lane.path]);
    const got = await a.resumeLane(9, "agent/9-x", "main");
    assert.equal(got.outcome, "kept");
    assert.equal(await a.headSha(got.lane!), sha);
  });

  it("fast-forwarded: the copy here was only behind", async () => {
    await workOnA();
    await b.resumeLane(7, branch, "main");
    const laneA = { ticket: 7, branch, path: a.lanePath(7) };
    const newer = await commitFiles(laneA.path, { "src/c.txt": "c\n" }, "fix on host A");
    assert.equal((await a.push(laneA)).ok, true);

    const got = await b.resumeLane(7, branch, "main");
    assert.equal(got.outcome, "fast-forwarded");
    assert.equal(await b.headSha(got.lane!), newer);
    assert.equal(await b.isClean(got.lane!), true);
  });

  it("fast-forwarded over uncommitted changes: they are saved under refs/ticket-runner/saved/ first", async () => {
    await workOnA();
    const made = await b.resumeLane(7, branch, "main");
    await writeFile(join(made.lane!.path, "src/a.txt"), "a killed Stage's half-edit\n");
    const laneA = { ticket: 7, branch, path: a.lanePath(7) };
    const newer = await commitFiles(laneA.path, { "src/a.txt": "three\n" }, "host A edits the same file");
    await a.push(laneA);

    const got = await b.resumeLane(7, branch, "main");
    assert.equal(got.outcome, "fast-forwarded");
    assert.equal(await b.headSha(got.lane!), newer);
    assert.match(got.detail, /refs\/ticket-runner\/saved\/ticket-7-/);
    const saved = (await git(b.root, ["for-each-ref", "--format=%(refname)", "refs/ticket-runner/saved/"])).split("\n")[0]!;
    assert.equal(await git(b.root, ["show", `${saved}:src/a.txt`]), "a killed Stage's half-edit");
  });

  it("parted: both sides hold commits the other lacks; refused, naming both copies and both ways out", async () => {
    await workOnA();
    const made = await b.resumeLane(7, branch, "main");
    const local = await commitFiles(made.lane!.path, { "src/b.txt": "host B's unpushed work\n" }, "B");
    const laneA = { ticket: 7, branch, path: a.lanePath(7) };
    const remote = await commitFiles(laneA.path, { "src/c.txt": "host A moved on\n" }, "A");
    await a.push(laneA);

    const err = await b.resumeLane(7, branch, "main").then(
      () => assert.fail("parted copies must be refused"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof Refusal);
    assert.equal(err.reason, "branches-parted");
    assert.match(err.message, new RegExp(local.slice(0, 12)));
    assert.match(err.message, new RegExp(remote.slice(0, 12)));
    // One way out, the safe one: this Host's copy kept on a branch of its own, the remote's taken.
    assert.equal(
      err.details.next,
      `git -C ${b.root} branch ${branch}-here-${local.slice(0, 7)} ${local} && git -C ${b.lanePath(7)} reset --keep origin/${branch}`,
    );
    assert.ok(err.message.includes(`\`${err.details.next}\``), err.message);
    assert.doesNotMatch(err.message, /--force|--hard|branch -D/);
    assert.equal(err.details.path, b.lanePath(7));
    // Nothing was picked: both copies are where they were.
    assert.equal(await git(b.root, ["rev-parse", branch]), local);
    assert.equal(await git(fx.remote, ["rev-parse", branch]), remote);
  });

  it("parted by a rebase only (this Host rebased, killed before its push): kept when it also holds more; else the remote's copy, old tip saved", async () => {
    const { sha: pushed } = await workOnA();
    await fx.pushCommit({ "README.md": "main moved on\n" }, "main moves");
    await a.fetchBase("main");
    const laneA = { ticket: 7, branch, path: a.lanePath(7) };
    assert.equal(await a.rebaseOnto(laneA, "main"), "clean");
    const rebased = await a.headSha(laneA);
    assert.notEqual(rebased, pushed);

    // Only the rebase: the remote's copy is the published one, and the rebased tip is kept by name.
    const got = await a.resumeLane(7, branch, "main");
    assert.equal(got.outcome, "fast-forwarded", got.detail);
    assert.equal(await a.headSha(laneA), pushed);
    const saved = /kept as (refs\/ticket-runner\/saved\/\S+?)\./.exec(got.detail)?.[1];
    assert.ok(saved, got.detail);
    assert.equal(await git(a.root, ["rev-parse", saved]), rebased);

    // The rebase plus more work: this Host's copy holds everything, so it is kept for the next push.
    assert.equal(await a.rebaseOnto(laneA, "main"), "clean");
    const more = await commitFiles(laneA.path, { "src/d.txt": "after the rebase\n" }, "more work on #7");
    const kept = await a.resumeLane(7, branch, "main");
    assert.equal(kept.outcome, "kept");
    assert.match(kept.detail, /a rebase of the remote's/);
    assert.equal(await a.headSha(laneA), more);
    assert.equal((await a.push(laneA)).ok, true, "the lease push replaces the remote's copy");
    assert.equal(await git(fx.remote, ["rev-parse", branch]), more);
  });

  it("gone: neither the remote nor this Host has the branch", async () => {
    await workOnA();
    await b.fetchBase("main");
    await git(b.root, ["fetch", "-q", "origin", `+refs/heads/${branch}:refs/remotes/origin/${branch}`]);
    await git(fx.remote, ["update-ref", "-d", `refs/heads/${branch}`]);
    const got = await b.resumeLane(7, branch, "main");
    assert.equal(got.outcome, "gone");
    assert.equal(got.lane, null);
    // The stale remote-tracking copy went too, so nobody pushes against a ghost.
    assert.equal(await git(b.root, ["for-each-ref", `refs/remotes/origin/${branch}`]), "");
  });

  it("a rebase a killed Run left in progress is aborted back to the branch tip first", async () => {
    const { sha } = await workOnA();
    await fx.pushCommit({ "src/a.txt": "upstream\n" }, "conflicting change on main");
    await a.fetchBase("main");
    const lane = { ticket: 7, branch, path: a.lanePath(7) };
    assert.equal(await a.rebaseOnto(lane, "main"), "conflict");
    assert.equal(await a.rebaseInProgress(lane), true);

    const got = await a.resumeLane(7, branch, "main");
    assert.equal(got.outcome, "kept");
    assert.match(got.detail, /rebase left in progress was aborted/);
    assert.equal(await a.rebaseInProgress(lane), false);
    assert.equal(await a.headSha(lane), sha);
    assert.equal(await git(lane.path, ["rev-parse", "--abbrev-ref", "HEAD"]), branch);
  });

  it("an index.lock in the lane: left alone while a process works there and the lock is fresh; moved aside (kept) once it is old, or nobody is there", async () => {
    await workOnA();
    await fx.pushCommit({ "src/a.txt": "upstream\n" }, "conflicting change on main");
    await a.fetchBase("main");
    const lane = { ticket: 7, branch, path: a.lanePath(7) };
    assert.equal(await a.rebaseOnto(lane, "main"), "conflict");
    const lock = await git(lane.path, ["rev-parse", "--path-format=absolute", "--git-path", "index.lock"]);
    // A person's shell in the lane: its `git status` may hold the lock this very moment.
    const person = spawn("sleep", ["600"], { cwd: lane.path, stdio: "ignore" });
    const gone = new Promise((done) => person.on("exit", done));
    try {
      await waitFor(async () => (await readlink(`/proc/${person.pid}/cwd`).catch(() => "")) === lane.path, { what: "the shell to sit in the lane" });
      await writeFile(lock, "");
      await assert.rejects(a.resumeLane(7, branch, "main"), /index\.lock/);
      assert.ok(existsSync(lock), "fresh, with someone in the lane: not touched");

      // Older than STALE_LOCK_MS: no git holds a lock that long.
      const old = new Date(Date.now() - STALE_LOCK_MS - 60_000);
      await utimes(lock, old, old);
      const got = await a.resumeLane(7, branch, "main");
      assert.equal(got.outcome, "kept");
      assert.match(got.detail, /Stale git locks left by a killed git were moved aside: .*index\.lock → .*ticket-runner\/stale-locks\//);
      assert.match(got.detail, /rebase left in progress was aborted/);
      assert.equal(existsSync(lock), false);
      const kept = /→ (\S+?)\.( |$)/.exec(got.detail)?.[1];
      assert.ok(kept && existsSync(kept), `renamed, not deleted: ${got.detail}`);
      assert.equal(await a.rebaseInProgress(lane), false);
    } finally {
      person.kill("SIGKILL");
      await gone;
    }

    // Fresh, and no process works in the lane (its git was killed with the Run a moment ago).
    await writeFile(lock, "");
    const again = await a.resumeLane(7, branch, "main");
    assert.match(again.detail, /index\.lock → /);
    assert.equal(existsSync(lock), false);
  });

  it("a stale lock on the ticket's branch ref (a git killed mid-update) is renamed aside, so the fast-forward goes through", async () => {
    await workOnA();
    const made = await b.resumeLane(7, branch, "main");
    const laneA = { ticket: 7, branch, path: a.lanePath(7) };
    const moved = await commitFiles(laneA.path, { "src/c.txt": "host A moved on\n" }, "A moves on");
    assert.equal((await a.push(laneA)).ok, true);
    const lock = await git(b.root, ["rev-parse", "--path-format=absolute", "--git-path", `refs/heads/${branch}.lock`]);
    // Fresh, but no process works in host B's clone: a git killed with its Run left it.
    await writeFile(lock, "");

    const got = await b.resumeLane(7, branch, "main");
    assert.equal(got.outcome, "fast-forwarded", got.detail);
    assert.match(got.detail, /refs\/heads\/agent\/7-resume-me\.lock → /);
    assert.equal(
      await git(b.root, ["for-each-ref", "--format=%(refname)", "refs/heads/agent/"]),
      `refs/heads/${branch}`,
      "nothing left under refs/ that git reads as a branch",
    );
    assert.equal(await b.headSha(made.lane!), moved);
    assert.equal(existsSync(lock), false);
  });

  it("a branch checked out somewhere other than its lane is refused, naming that worktree", async () => {
    await workOnA();
    await git(b.root, ["fetch", "-q", "origin", `+refs/heads/${branch}:refs/remotes/origin/${branch}`]);
    await git(b.root, ["switch", "-q", "-c", branch, `origin/${branch}`]);
    await assert.rejects(b.resumeLane(7, branch, "main"), (e: unknown) => e instanceof Refusal && e.reason === "branch-in-way" && e.message.includes(b.root));
  });
});
