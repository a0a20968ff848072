/**
 * The git runner starts git through the git spawner, a small long-lived process (ADR 0261), or
 * directly with TICKET_RUNNER_GIT_SPAWN=direct. Both ways must give the same outcomes, against a
 * real repository: stdin fed and closed, an empty stdin otherwise, exit codes handed back, a cwd
 * that is gone answered with no exit code, and a spawner that dies replaced by the next call.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { SPAWNER_QUIET_MS, spawnerCounts, letGoOfSpawner } from "../../../src/adapters/spawner/spawner";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, makeRemote } from "../../support/git-fixtures";
import { waitFor } from "../../support/wait-for";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

/** Pids of this process's children running `node -e` (the git spawner). */
function spawnerPids(): number[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => / -e "use strict";/.test(l) || /node -e /.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((n) => n > 0);
}

describe("workspace: the git runner", () => {
  let fx: RemoteFixture;
  let root: string;
  let blob: string;

  before(async () => {
    fx = await makeRemote({ files: { "README.md": "hello\n" } });
    root = await fx.clone("target");
    blob = await git(root, ["rev-parse", "HEAD:README.md"]);
  });
  after(async () => {
    await fx.cleanup();
  });

  for (const way of ["spawner", "direct"] as const) {
    describe(`started ${way === "spawner" ? "through the git spawner" : "directly"}`, () => {
      const runner = () => new GitRunner({ env: { ...ISOLATED_GIT_ENV, TICKET_RUNNER_GIT_SPAWN: way === "direct" ? "direct" : undefined } });

      it("feeds stdin and closes it: one `cat-file --batch` returns the blob", async () => {
        const before = spawnerCounts()[way];
        const res = await runner().raw(["cat-file", "--batch"], { cwd: root, input: `${blob}\n` });
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stdout.toString("utf8"), /^[0-9a-f]{40} blob 6\nhello\n/);
        assert.equal(spawnerCounts()[way], before + 1);
      });

      it("a call without input reads an empty stdin rather than waiting for one", async () => {
        const res = await runner().raw(["cat-file", "--batch"], { cwd: root });
        assert.equal(res.code, 0, res.stderr);
        assert.equal(res.stdout.length, 0);
      });

      it("exit codes are answers: 1 from --is-ancestor is false, anything else throws", async () => {
        const r = runner();
        assert.equal(await r.text(["rev-parse", "HEAD:README.md"], { cwd: root }), blob);
        assert.equal(await r.test(["merge-base", "--is-ancestor", "HEAD", "HEAD"], { cwd: root }), true);
        await assert.rejects(r.test(["merge-base", "--is-ancestor", "HEAD", "nope"], { cwd: root }), /merge-base/);
      });

      it("a cwd that is gone: no exit code, and the reason", async () => {
        const res = await runner().raw(["status"], { cwd: `${root}/no-such-dir` });
        assert.equal(res.code, null);
        assert.match(res.stderr, /ENOENT/);
      });
    });
  }

  it("a spawner that dies is replaced by the next call's", async () => {
    const r = new GitRunner({ env: ISOLATED_GIT_ENV });
    assert.equal((await r.raw(["rev-parse", "HEAD"], { cwd: root })).code, 0);
    const [pid] = spawnerPids();
    assert.ok(pid, "a git spawner runs as a child of this process");
    process.kill(pid, "SIGKILL");
    // Gone and reaped (a zombie still has its /proc entry), so this process has seen it end.
    await waitFor(() => !existsSync(`/proc/${pid}`), { what: "the spawner to be gone" });
    const before = spawnerCounts();
    const again = await r.raw(["rev-parse", "HEAD"], { cwd: root });
    assert.equal(again.code, 0, again.stderr);
    const after = spawnerCounts();
    assert.equal(after.spawners, before.spawners + 1, "a new spawner took over");
    assert.equal(after.spawner, before.spawner + 1, "and started the git");
  });

  it("a spawner with nothing to do goes by itself", async () => {
    const r = new GitRunner({ env: ISOLATED_GIT_ENV });
    assert.equal((await r.raw(["rev-parse", "HEAD"], { cwd: root })).code, 0);
    await waitFor(() => spawnerPids().length === 0, { what: "the quiet spawner to exit", timeoutMs: SPAWNER_QUIET_MS + 10_000 });
  });

  it("a command done with git lets the spawner go at once, and it has exited when that resolves", async () => {
    const r = new GitRunner({ env: ISOLATED_GIT_ENV });
    assert.equal((await r.raw(["rev-parse", "HEAD"], { cwd: root })).code, 0);
    const [pid] = spawnerPids();
    assert.ok(pid, "a git spawner runs as a child of this process");
    const ended = spawnerCounts().spawnersEnded;
    await letGoOfSpawner();
    assert.equal(spawnerCounts().spawnersEnded, ended + 1);
    assert.equal((await r.raw(["rev-parse", "HEAD"], { cwd: root })).code, 0, "the next call starts another");
  });
});
