/**
 * Workspace figures against a local bare remote: a State write, a lock take + release, and the
 * baseline they are built on, one plain commit + push measured in the same run.
 *   npm run bench:workspace
 */
import { performance } from "node:perf_hooks";
import { GitWorkspace } from "../src/adapters/git/git-workspace";
import { NodeHost } from "../src/adapters/node-host";
import { commitFiles, git, makeRemote, TEST_IDENTITY } from "../test/support/git-fixtures";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

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

async function main(): Promise<void> {
  const fx = await makeRemote();
  try {
    const plain = await fx.clone("plain");
    const root = await fx.clone("target");
    const host = new NodeHost();
    const ws = new GitWorkspace({ root, host, identity: TEST_IDENTITY, env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } });
    const state = (n: number) => ({ ticket: n + 1, branch: `agent/${n + 1}-x`, state: "claimed" as const, fixUsed: false, pullRequest: null, title: null, runId: "bench", version: "0.1.0", updatedAt: new Date().toISOString() });

    const baseline = await time(async (i) => {
      await commitFiles(plain, { [`f${i}.txt`]: `${i}\n` }, `plain ${i}`);
      await git(plain, ["push", "-q", "origin", "main"]);
    });
    const write = await time((i) => ws.writeState(i + 1, () => state(i)));
    const lock = await time(async (i) => {
      const runId = `bench-${i}`;
      await ws.acquireLock({ host: host.identity(), pid: process.pid, command: "bench", runId, startedAt: new Date().toISOString(), processStartTime: await host.processStartTime(process.pid) });
      await ws.releaseLock(runId);
    });
    const read = await time(() => ws.readStates());

    console.log(`rounds: ${ROUNDS} (median ms)`);
    console.log(`baseline: plain commit + push      ${baseline.toFixed(1)} ms`);
    console.log(`State write (fetch..push)          ${write.toFixed(1)} ms   ratio ${(write / baseline).toFixed(2)}x baseline`);
    console.log(`Run lock take + release            ${lock.toFixed(1)} ms   ratio ${(lock / baseline).toFixed(2)}x baseline`);
    console.log(`readStates (${ROUNDS} files)             ${read.toFixed(1)} ms   ratio ${(read / baseline).toFixed(2)}x baseline`);
  } finally {
    await fx.cleanup();
  }
}

void main();
