/**
 * Workspace figures against a real HTTP remote (the sandbox, in its own process), with several
 * writers as several Hosts (separate clones):
 *   baseline: one plain commit + push over HTTP, measured in the same run;
 *   State write, one writer; Run lock take + release; readStates of the files written;
 *   State writes from WRITERS clones at once, each writing its own new tickets after a listing (as a
 *   Run's takes follow its sweep): throughput against one writer, and pushes per write (git-receive-pack requests in the sandbox's log; a push lost to a
 *   neighbour shows as more than 1).
 * Goals (exit 1 when missed): State write ≤ 3× the plain push; readStates ≤ 3×; lock ≤ 6×;
 * pushes per write with several writers 1.00 (no hot ref); several writers ≥ 1.5× one writer's throughput,
 * the median of --pairs (default 3) pairs of one writer alone and several at once, back to back (ADR 0498).
 *
 *   npm run bench:workspace -- [--rounds 12] [--writers 4] [--pairs 3]
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { join } from "node:path";
import { GitWorkspace } from "../src/adapters/git/git-workspace";
import { NodeHost } from "../src/adapters/node-host";
import type { StateFile } from "../src/core/schemas/state-file";
import { TEST_IDENTITY, commitFiles, git, makeTempDir } from "../test/support/git-fixtures";
import { cloneWithToken } from "../test/support/run-seed";
import { benchTarget } from "./support/bench-target";
import { sandboxProcess } from "../test/support/sandbox-process";
import { childrenCpuMs, processTreeCpuMs, spawnersEnded } from "./cpu";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const ROUNDS = arg("--rounds", 12);
const WRITERS = arg("--writers", 4);
/** How many times one writer alone and WRITERS at once are measured; the median pair is judged (ADR 0498). */
const SPEEDUP_PAIRS = arg("--pairs", 3);
/** The tickets written alone and together: new numbers each pair, past the rounds' own 1..ROUNDS. */
const ALONE_TICKETS = 5000;
const TOGETHER_TICKETS = 10_000;
const ISOLATED = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function time(fn: (i: number) => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const state = (ticket: number): StateFile => ({
  ticket,
  branch: `agent/${ticket}-x`,
  state: "claimed",
  fixUsed: false,
  pullRequest: null,
  title: null,
  runId: "bench",
  version: "0.1.0",
  updatedAt: new Date().toISOString(),
});

async function main(): Promise<void> {
  const sandbox = await sandboxProcess();
  const scratch = await makeTempDir("tr-bench-ws-");
  const missed: string[] = [];
  try {
    const { writer: token } = await benchTarget(sandbox.admin, { owner: "bench", repo: "ws", users: ["writer"] });
    const url = sandbox.gitUrl("bench", "ws");
    const clone = async (name: string): Promise<string> => {
      const dir = join(scratch, name);
      await cloneWithToken(url, token, dir);
      return dir;
    };
    const host = new NodeHost();
    const workspace = async (name: string): Promise<GitWorkspace> =>
      new GitWorkspace({ root: await clone(name), host, identity: TEST_IDENTITY, token, env: ISOLATED });
    const plain = await clone("plain");
    const auth = ["-c", `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`];

    const baseline = await time(async (i) => {
      await commitFiles(plain, { [`f${i}.txt`]: `${i}\n` }, `plain ${i}`);
      await git(plain, [...auth, "push", "-q", "origin", "HEAD:main"]);
    });
    const one = await workspace("one");
    const write = await time((i) => one.writeState(i + 1, () => state(i + 1)));
    const lock = await time(async (i) => {
      const runId = `bench-${i}`;
      await one.acquireLock({
        host: host.identity(),
        pid: process.pid,
        command: "bench",
        runId,
        startedAt: new Date().toISOString(),
        processStartTime: await host.processStartTime(process.pid),
      });
      await one.releaseLock(runId);
    });
    const read = await time(() => one.readStates());

    // Several Hosts at once, each on its own tickets, against one writer doing the same count alone.
    const writers = await Promise.all(Array.from({ length: WRITERS }, (_, w) => workspace(`writer-${w}`)));
    // Each writer lists the records first, as a Run's sweep does before its takes, so alone and together write new tickets the same way (ADR 0400).
    for (const ws of [one, ...writers]) await ws.readStates();
    const each = ROUNDS;
    // Every process's CPU counts: this one, its git processes (through the spawner) and the sandbox's tree.
    const cpuNow = () => {
      const own = process.cpuUsage();
      return (own.user + own.system) / 1000 + childrenCpuMs() + processTreeCpuMs(sandbox.pid);
    };
    const timed = async (write: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> => {
      await spawnersEnded();
      const cpu0 = cpuNow();
      const t = performance.now();
      await write();
      const ms = performance.now() - t;
      await spawnersEnded();
      return { ms, cpuMs: cpuNow() - cpu0 };
    };
    // One writer alone against WRITERS at once, SPEEDUP_PAIRS times back to back, the order turned each
    // time; the median pair's speedup is judged (ADR 0498: one pair gave 1.56–2.83× minutes apart).
    const pairs: { alone: { ms: number; cpuMs: number }; together: { ms: number; cpuMs: number }; pushes: number; speedup: number }[] = [];
    for (let p = 0; p < SPEEDUP_PAIRS; p++) {
      const alone = () =>
        timed(async () => {
          for (let i = 0; i < each; i++) await one.writeState(ALONE_TICKETS + p * 100 + i, () => state(ALONE_TICKETS + p * 100 + i));
        });
      const together = async () => {
        await sandbox.admin.clearRequestLog();
        const measured = await timed(() =>
          Promise.all(
            writers.map(async (ws, w) => {
              const first = TOGETHER_TICKETS + w * 1000 + p * 100;
              for (let i = 0; i < each; i++) await ws.writeState(first + i, () => state(first + i));
            }),
          ),
        );
        const pushes = (await sandbox.admin.requestLog()).filter((r) => r.method === "POST" && r.path.endsWith("/git-receive-pack")).length;
        return { ...measured, pushes };
      };
      const a = p % 2 === 0 ? await alone() : null;
      const t = await together();
      const b = a ?? (await alone());
      pairs.push({ alone: b, together: t, pushes: t.pushes, speedup: (WRITERS * each) / t.ms / (each / b.ms) });
    }
    const { alone, together, speedup } = [...pairs].sort((a, b) => a.speedup - b.speedup)[Math.floor((pairs.length - 1) / 2)]!;
    const aloneMs = alone.ms;
    const aloneCpuMs = alone.cpuMs;
    const togetherMs = together.ms;
    const togetherCpuMs = together.cpuMs;
    const pushes = pairs.reduce((sum, p) => sum + p.pushes, 0);
    const writes = WRITERS * each * pairs.length;
    const stored = (await one.readStates()).files.filter((f) => f.ticket >= TOGETHER_TICKETS).length;

    console.log(`bench:workspace — the sandbox's smart-HTTP remote (own process), ${ROUNDS} rounds, medians`);
    console.log(`baseline: plain commit + push                ${baseline.toFixed(0)} ms`);
    console.log(`State write (ls-remote..push)                ${write.toFixed(0)} ms   ${(write / baseline).toFixed(2)}× baseline (goal ≤ 3×)`);
    console.log(`Run lock take + release                      ${lock.toFixed(0)} ms   ${(lock / baseline).toFixed(2)}× baseline (goal ≤ 6×)`);
    console.log(`readStates (${ROUNDS} files)                       ${read.toFixed(0)} ms   ${(read / baseline).toFixed(2)}× baseline (goal ≤ 3×)`);
    const cores = cpus().length;
    // One writer keeps aloneCpuMs / aloneMs cores busy; the machine has `cores`: no number of writers goes past that.
    const ceiling = cores / (aloneCpuMs / aloneMs);
    console.log(
      `CPU per State write, every process (Run, git, sandbox): ${(aloneCpuMs / each).toFixed(0)} ms alone, ${(togetherCpuMs / (WRITERS * each)).toFixed(0)} ms with ${WRITERS} writers · one writer keeps ${(aloneCpuMs / aloneMs).toFixed(2)} of ${cores} cores busy, so ${cores} idle cores allow at most ${ceiling.toFixed(2)}× · load ${loadavg()[0]!.toFixed(1)}`,
    );
    console.log(
      `${WRITERS} writers × ${each} State writes at once     ${togetherMs.toFixed(0)} ms for ${WRITERS * each} · ${((WRITERS * each) / (togetherMs / 1000)).toFixed(1)} writes/s vs ${(each / (aloneMs / 1000)).toFixed(1)} alone = ${speedup.toFixed(2)}×, the median pair of ${pairs.map((p) => `${p.speedup.toFixed(2)}×`).join(", ")} (goal ≥ 1.5×) · pushes per write ${(pushes / writes).toFixed(2)} over every pair (goal 1.00), ${stored} of ${writes} stored`,
    );
    if (write / baseline > 3) missed.push(`State write ${(write / baseline).toFixed(2)}× baseline`);
    if (read / baseline > 3) missed.push(`readStates ${(read / baseline).toFixed(2)}× baseline`);
    if (lock / baseline > 6) missed.push(`lock ${(lock / baseline).toFixed(2)}× baseline`);
    if (pushes !== writes) missed.push(`${pushes} pushes for ${writes} State writes: writers contended`);
    if (stored !== writes) missed.push(`${stored} of ${writes} State files stored`);
    if (speedup < 1.5) missed.push(`${WRITERS} writers only ${speedup.toFixed(2)}× one writer`);
  } finally {
    await sandbox.stop();
    const { rm } = await import("node:fs/promises");
    await rm(scratch, { recursive: true, force: true });
  }
  if (missed.length > 0) {
    console.log(`MISSED: ${missed.join("; ")}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(`bench:workspace failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
