/**
 * bench/lane-push.ts (ADR 0478): the CPU of a Lane's branch push, every process of both sides counted
 * (the Run's and the in-process sandbox's JavaScript, our git and the sandbox's), through `git
 * push` (TICKET_RUNNER_GIT_HTTP=git) and spoken from this process. N new branches each, after one
 * push each not counted. `npx tsx bench/lane-push.ts [N] [http-first]`; run it under
 * quiet machine and twice, in both orders: it is noisy. Goal: the in-process push costs less
 * CPU than `git push` measured in the same run; exits 1 when it does not.
 */
import { join } from "node:path";
import { rm } from "node:fs/promises";
import { GitRunner } from "../src/adapters/git/git-runner";
import { push } from "../src/adapters/git/lane-ops";
import type { RepoContext } from "../src/adapters/git/repo-context";
import { RemoteGit } from "../src/adapters/git/remote-git";
import { letGoOfSpawner } from "../src/adapters/spawner/spawner";
import { startSandbox } from "../src/sandbox/start";
import { commitFiles, git, makeTempDir, TEST_IDENTITY } from "../test/support/git-fixtures";
import { childrenCpuMs, spawnersEnded } from "./cpu";

const N = Number(process.argv[2] ?? 15);
const ENV = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
async function main(): Promise<void> {
  const dir = await makeTempDir("h3-pb-");
  const sandbox = await startSandbox({ quiet: true, seed: "none", dataDir: join(dir, "sb") });
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) files[`src/f${i}.txt`] = `file ${i}\n`.repeat(100);
  await sandbox.admin.createRepo({ owner: "acme", name: "w", files });
  const token = (await sandbox.admin.addUser({ login: "r", repos: { "acme/w": "write" } })).token;
  const url = sandbox.gitUrl("acme", "w");
  const root = join(dir, "clone");
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  await git(dir, ["clone", "-q", url, root], {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  });
  const lanes: { ticket: number; branch: string; path: string }[] = [];
  for (let i = 1; i <= 2 * N + 2; i++) {
    const lane = { ticket: i, branch: `agent/${i}-x`, path: join(dir, `l${i}`) };
    await git(root, ["worktree", "add", "-q", "-b", lane.branch, lane.path, "origin/main"]);
    await commitFiles(lane.path, { [`src/f${i % 50}.txt`]: `changed ${i}\n`.repeat(100), [`new${i}.txt`]: "n\n" }, `t${i}`);
    lanes.push(lane);
  }
  const ctxFor = (env: Record<string, string>): RepoContext => {
    const runner = new GitRunner({ env: ENV, identity: TEST_IDENTITY, token });
    return { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin", url, token, env: { ...ENV, ...env } }) };
  };
  const measure = async (name: string, ctx: RepoContext, which: typeof lanes): Promise<number> => {
    // The first push of each path makes what is made once (the private directory, the sandbox's kept advertisement).
    await push(ctx, which[0]!);
    await letGoOfSpawner();
    await spawnersEnded();
    const c0 = process.cpuUsage();
    const k0 = childrenCpuMs();
    const t0 = Date.now();
    for (const lane of which.slice(1)) {
      const r = await push(ctx, lane);
      if (!r.ok) throw new Error(r.detail);
    }
    await letGoOfSpawner();
    await spawnersEnded();
    const c = process.cpuUsage(c0);
    const own = (c.user + c.system) / 1000;
    const kids = childrenCpuMs() - k0;
    const n = which.length - 1;
    console.log(
      `${name}: ${n} pushes, per push: own (Run + sandbox JS) ${(own / n).toFixed(1)} ms · children (git both sides, spawner) ${(kids / n).toFixed(1)} ms · total ${((own + kids) / n).toFixed(1)} ms · wall ${((Date.now() - t0) / n).toFixed(0)} ms`,
    );
    return (own + kids) / n;
  };
  const viaGit = ctxFor({ TICKET_RUNNER_GIT_HTTP: "git" });
  const viaHttp = ctxFor({});
  let gitMs: number;
  let httpMs: number;
  if (process.argv[3] === "http-first") {
    httpMs = await measure("http", viaHttp, lanes.slice(N + 1));
    gitMs = await measure("git ", viaGit, lanes.slice(0, N + 1));
  } else {
    gitMs = await measure("git ", viaGit, lanes.slice(0, N + 1));
    httpMs = await measure("http", viaHttp, lanes.slice(N + 1));
  }
  // The baseline is git push in this same run: the push from this process must cost less.
  const ratio = httpMs / gitMs;
  const met = ratio < 1;
  console.log(`CPU a push, from this process : through git push = ${ratio.toFixed(2)} (goal < 1.00) ${met ? "met" : "MISSED"}`);
  if (!met) process.exitCode = 1;
  await viaGit.net.dispose();
  await viaHttp.net.dispose();
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
}
void main().then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
