/**
 * A sandbox killed mid-write leaves git's lock files in a repository (ADR 0486): a ref lock
 * (`<ref>.lock`, written by git and by the pushes the sandbox takes in its own process) and
 * `packed-refs.lock`. Restarted on the same data folder, the sandbox removes the locks no live
 * process can hold before it serves, says which, and the push to the ref goes through; a lock in
 * a repository a live process works in is left where it is, and said; without procfs only an
 * old lock is taken for stale.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { STALE_LOCK_MS } from "../../../src/adapters/git/stale-locks";
import { clearLeftLocks } from "../../../src/sandbox/left-locks";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { commitFile, gitOk, runGit } from "./support";

interface Left {
  data: string;
  gitDir: string;
  clone: string;
  token: string;
  main: string;
}

function authUrl(sb: SandboxHandle, token: string): string {
  const url = new URL(sb.gitUrl("acme", "kept"));
  url.username = "x-access-token";
  url.password = token;
  return url.toString();
}

describe("sandbox: lock files a killed sandbox left in its repositories (integration)", function () {
  this.timeout(60_000);
  let tmp: string;
  beforeEach(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-left-locks-"));
  });
  afterEach(async () => fsp.rm(tmp, { recursive: true, force: true }));

  /** A data folder with one repository and a clone of it; the sandbox that made them is stopped. */
  async function dataFolder(): Promise<Left> {
    const data = path.join(tmp, "data");
    const first = await startSandbox({ dataDir: data, quiet: true });
    try {
      await first.admin.createRepo({ owner: "acme", name: "kept", files: { "a.txt": "a\n" } });
      const { token } = await first.admin.addUser({ login: "bob", repos: { "acme/kept": "write" } });
      const clone = path.join(tmp, "clone");
      await gitOk(["clone", "--quiet", authUrl(first, token), clone], tmp);
      const main = await gitOk(["rev-parse", "HEAD"], clone);
      return { data, gitDir: path.join(data, "repos", "acme", "kept.git"), clone, token, main };
    } finally {
      await first.stop();
    }
  }

  /** What a sandbox SIGKILLed between taking a ref's lock and renaming it over the ref leaves. */
  async function leaveLocks(left: Left): Promise<string[]> {
    const locks = [path.join(left.gitDir, "refs", "heads", "main.lock"), path.join(left.gitDir, "packed-refs.lock")];
    await fsp.writeFile(locks[0]!, `${left.main}\n`);
    await fsp.writeFile(locks[1]!, "");
    return locks;
  }

  it("a restart removes the locks no live process holds, says so, and the push to the branch goes through", async () => {
    const left = await dataFolder();
    const locks = await leaveLocks(left);
    const notes: string[] = [];
    const second = await startSandbox({ dataDir: left.data, quiet: true, notes: (line) => notes.push(line) });
    try {
      assert.deepEqual(notes, [
        "sandbox: removed acme/kept.git/packed-refs.lock, a lock no live process holds (left by a sandbox or git that was killed)",
        `sandbox: removed acme/kept.git/refs/heads/main.lock (was to write ${left.main}), a lock no live process holds (left by a sandbox or git that was killed)`,
      ]);
      for (const lock of locks) await assert.rejects(fsp.access(lock), `${lock} is gone`);
      await gitOk(["remote", "set-url", "origin", authUrl(second, left.token)], left.clone);
      const next = await commitFile(left.clone, "b.txt", "b\n", "after the restart");
      const pushed = await runGit(["push", "--quiet", "origin", "main"], left.clone);
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.equal(await gitOk(["--git-dir", left.gitDir, "rev-parse", "refs/heads/main"], tmp), next);
      assert.ok(!notes.some((n) => n.includes(left.token)));
    } finally {
      await second.stop();
    }
  });

  it("a lock in a repository a live process works in is left where it is, and said", async () => {
    const left = await dataFolder();
    const [mainLock] = await leaveLocks(left);
    // A git of the killed sandbox still at work in the repository: a process whose working directory it is.
    const holder: ChildProcess = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { cwd: left.gitDir, stdio: "ignore" });
    const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      holder.once("spawn", () => resolve());
      holder.once("error", reject);
    });
    try {
      const notes: string[] = [];
      const second = await startSandbox({ dataDir: left.data, quiet: true, notes: (line) => notes.push(line) });
      await second.stop();
      assert.deepEqual(notes, [
        "sandbox: left acme/kept.git/packed-refs.lock where it is: a live process may hold it",
        `sandbox: left acme/kept.git/refs/heads/main.lock (was to write ${left.main}) where it is: a live process may hold it`,
      ]);
      await fsp.access(mainLock!);
    } finally {
      holder.kill();
      await exited;
    }
  });

  it("without procfs, only a lock older than STALE_LOCK_MS is taken for stale", async () => {
    const gitDir = path.join(tmp, "repos", "acme", "aged.git");
    await fsp.mkdir(path.join(gitDir, "refs", "heads", "agent"), { recursive: true });
    const lock = path.join(gitDir, "refs", "heads", "agent", "1-x.lock");
    await fsp.writeFile(lock, "");
    const { mtimeMs } = await fsp.stat(lock);
    const young = await clearLeftLocks([gitDir], { procRoot: null, now: mtimeMs + STALE_LOCK_MS - 1 });
    assert.deepEqual(young, { removed: [], kept: ["acme/aged.git/refs/heads/agent/1-x.lock"] });
    const old = await clearLeftLocks([gitDir], { procRoot: null, now: mtimeMs + STALE_LOCK_MS });
    assert.deepEqual(old, { removed: ["acme/aged.git/refs/heads/agent/1-x.lock"], kept: [] });
    await assert.rejects(fsp.access(lock));
  });
});
