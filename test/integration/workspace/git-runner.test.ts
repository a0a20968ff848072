/**
 * The git runner starts git through the Python spawner (ADR 0480), the Node spawner
 * (TICKET_RUNNER_GIT_SPAWN=node; ADR 0261), or directly (TICKET_RUNNER_GIT_SPAWN=direct). Every
 * way must give the same outcomes, against a real repository: stdin fed and closed (binary, and
 * more than a pipe holds), an empty stdin otherwise, output of every byte value and of megabytes,
 * exit codes handed back, a cwd that is gone answered with no exit code; and a spawner of either
 * kind that dies is replaced by the next call, goes when quiet, and goes when the command ends.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { SPAWNER_QUIET_MS, spawnerCounts, letGoOfSpawner } from "../../../src/adapters/spawner/spawner";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, makeRemote } from "../../support/git-fixtures";
import { waitFor } from "../../support/wait-for";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

type Spawner = "python" | "node";

/** Pids of this process's children running `python3 -I -S -c` (the Python spawner) or `node -e` (the Node spawner). */
function spawnerPids(kind: Spawner): number[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
  const shape = kind === "python" ? /^\s*\d+\s+\S*python3 -I -S -c / : / -e "use strict";|node -e /;
  return out
    .split("\n")
    .filter((l) => shape.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((n) => n > 0);
}

/** The environment that picks a way (unset: the Python spawner). */
function wayEnv(way: Spawner | "direct"): Record<string, string | undefined> {
  return { ...ISOLATED_GIT_ENV, TICKET_RUNNER_GIT_SPAWN: way === "python" ? undefined : way };
}

/** The counter of processes started that way. */
const COUNTER = { python: "py", node: "spawner", direct: "direct" } as const;

describe("workspace: the git runner", () => {
  let fx: RemoteFixture;
  let root: string;
  let blob: string;

  before(async () => {
    fx = await makeRemote({ files: { "README.md": "hello\n" } });
    root = await fx.clone("target");
    blob = await git(root, ["rev-parse", "HEAD:README.md"]);
    // The clone's config is read once (driver-overrides.ts); read it now, so each test counts only its own git.
    await new GitRunner({ env: ISOLATED_GIT_ENV }).raw(["rev-parse", "HEAD"], { cwd: root });
  });
  after(async () => {
    await fx.cleanup();
  });

  for (const way of ["python", "node", "direct"] as const) {
    describe(`started ${way === "direct" ? "directly" : `through the ${way} spawner`}`, () => {
      const runner = () => new GitRunner({ env: wayEnv(way) });

      it("feeds stdin and closes it: one `cat-file --batch` returns the blob", async () => {
        const before = spawnerCounts()[COUNTER[way]];
        const res = await runner().raw(["cat-file", "--batch"], { cwd: root, input: `${blob}\n` });
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stdout.toString("utf8"), /^[0-9a-f]{40} blob 6\nhello\n/);
        assert.equal(spawnerCounts()[COUNTER[way]], before + 1, `counted as started ${way}`);
      });

      it("binary stdin and stdout of every byte value, and more than a megabyte, arrive whole", async () => {
        const every = Buffer.from(Array.from({ length: 256 * 4 }, (_, i) => i % 256));
        const big = randomBytes(1_500_000);
        for (const content of [every, big]) {
          const written = await runner().raw(["hash-object", "-w", "--stdin"], { cwd: root, input: content });
          assert.equal(written.code, 0, written.stderr);
          const id = written.stdout.toString("utf8").trim();
          const read = await runner().raw(["cat-file", "blob", id], { cwd: root });
          assert.equal(read.code, 0, read.stderr);
          assert.ok(read.stdout.equals(content), `${content.length} bytes back as written (got ${read.stdout.length})`);
        }
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

  for (const kind of ["python", "node"] as const) {
    describe(`the ${kind} spawner`, () => {
      const runner = () => new GitRunner({ env: wayEnv(kind) });

      it("one that dies is replaced by the next call's", async () => {
        const r = runner();
        assert.equal((await r.raw(["rev-parse", "HEAD"], { cwd: root })).code, 0);
        const [pid] = spawnerPids(kind);
        assert.ok(pid, `a ${kind} spawner runs as a child of this process`);
        process.kill(pid, "SIGKILL");
        // Gone and reaped (a zombie still has its /proc entry), so this process has seen it end.
        await waitFor(() => !existsSync(`/proc/${pid}`), { what: "the spawner to be gone" });
        const before = spawnerCounts();
        const again = await r.raw(["rev-parse", "HEAD"], { cwd: root });
        assert.equal(again.code, 0, again.stderr);
        const after = spawnerCounts();
        assert.equal(after.spawners, before.spawners + 1, "a new spawner took over");
        assert.equal(after[COUNTER[kind]], before[COUNTER[kind]] + 1, "and started the git");
      });

      it("one with nothing to do goes by itself", async () => {
        assert.equal((await runner().raw(["rev-parse", "HEAD"], { cwd: root })).code, 0);
        await waitFor(() => spawnerPids(kind).length === 0, { what: "the quiet spawner to exit", timeoutMs: SPAWNER_QUIET_MS + 10_000 });
      });

      it("a command done with git lets it go at once, and it has exited when that resolves", async () => {
        const r = runner();
        assert.equal((await r.raw(["rev-parse", "HEAD"], { cwd: root })).code, 0);
        const [pid] = spawnerPids(kind);
        assert.ok(pid, `a ${kind} spawner runs as a child of this process`);
        const ended = spawnerCounts().spawnersEnded;
        await letGoOfSpawner();
        assert.equal(spawnerCounts().spawnersEnded, ended + 1);
        assert.ok(!existsSync(`/proc/${pid}`), "exited and reaped");
        assert.equal((await r.raw(["rev-parse", "HEAD"], { cwd: root })).code, 0, "the next call starts another");
      });
    });
  }
});
