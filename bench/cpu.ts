/**
 * CPU time of processes, for the benches (Linux /proc): this process's reaped children, and any
 * process with its own reaped children (the sandbox, whose git processes it waits for). In ms.
 */
import { readFileSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Sandbox, findExecutable } from "../src/adapters/isolation/sandbox";
import { spawnerCounts } from "../src/adapters/spawner/spawner";
import type { ProcessKind } from "../src/adapters/spawner/spawner";
import { spawnStreamed } from "../src/adapters/spawner/streamed-process";
import { waitFor } from "../test/support/wait-for";

function statFields(pid: number | "self"): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** utime + stime of the reaped children of this process (git, the agent, the Checks, the git spawner). */
export function childrenCpuMs(): number {
  const f = statFields("self");
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** utime + stime of `pid` and of its reaped children. */
export function processTreeCpuMs(pid: number): number {
  const { own, reaped } = processCpuSplitMs(pid);
  return own + reaped;
}

/** utime + stime of `pid` itself, and of its reaped children (for the sandbox: its git processes). */
export function processCpuSplitMs(pid: number): { own: number; reaped: number } {
  const f = statFields(pid);
  return { own: (Number(f[11]) + Number(f[12])) * 10, reaped: (Number(f[13]) + Number(f[14])) * 10 };
}

/** Live children of `pid` (every thread's). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      if (text) out.push(...text.split(" ").map(Number));
    }
  } catch {
    // gone meanwhile
  }
  return out;
}

/** utime + stime of `pid` and its reaped children, and recursively of its live children (a spawner and what it reaped). */
export function liveTreeCpuMs(pid: number): number {
  let ms = 0;
  try {
    ms = processTreeCpuMs(pid);
  } catch {
    return 0;
  }
  for (const child of childrenOf(pid)) ms += liveTreeCpuMs(child);
  return ms;
}

/**
 * `pid` itself, and everything under it: its reaped children and its live ones' trees (the
 * sandbox's git, which its spawner starts: ADR 0391).
 */
export function processTreeSplitMs(pid: number): { own: number; reaped: number } {
  const { own, reaped } = processCpuSplitMs(pid);
  return { own, reaped: reaped + childrenOf(pid).reduce((sum, child) => sum + liveTreeCpuMs(child), 0) };
}

export type KindCpu = Record<ProcessKind, { processes: number; cpuMs: number }>;

/** What the spawner counted per kind since `before` (spawnerCounts().byKind). */
export function kindsSince(before: KindCpu, after: KindCpu = spawnerCounts().byKind): KindCpu {
  const out = {} as KindCpu;
  for (const k of Object.keys(after) as ProcessKind[])
    out[k] = { processes: after[k].processes - before[k].processes, cpuMs: after[k].cpuMs - before[k].cpuMs };
  return out;
}

/**
 * What one bwrap sandbox (ADR 0290) costs to start, in CPU: `true` started through the spawner
 * inside the sandbox the Run would make for `clone`'s Lanes, and outside it, `n` times each, counted
 * by `usageMs` (the bench's cgroup: what runs inside a sandbox is reaped by no process of ours).
 */
export async function bwrapStartCpuMs(clone: string, usageMs: () => number, n = 20): Promise<{ inside: number; outside: number }> {
  const sandbox = new Sandbox({ mode: "sandbox" });
  const global = join(homedir(), ".gitconfig");
  await sandbox.prepare({ root: clone, commonDir: join(clone, ".git"), configFiles: [join(clone, ".git", "config"), global] });
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  const run = async (argv: string[]): Promise<number> => {
    const before = usageMs();
    for (let i = 0; i < n; i++) {
      const p = spawnStreamed({ kind: "check", command: argv[0]!, args: argv.slice(1), cwd: clone, env, input: null });
      p.stdout.resume();
      p.stderr.resume();
      await new Promise<void>((resolve) => {
        p.once("close", () => resolve());
        p.once("error", () => resolve());
      });
    }
    return (usageMs() - before) / n;
  };
  const trueBin = findExecutable("true", process.env.PATH, clone) ?? "/bin/true";
  return { inside: await run(sandbox.wrap([trueBin], clone, env)), outside: await run([trueBin]) };
}

/** The spawner's CPU (and its processes') is counted once it has ended (letGoOfSpawner, or its quiet time). */
export async function spawnersEnded(): Promise<void> {
  await waitFor(() => spawnerCounts().spawnersEnded === spawnerCounts().spawners, { timeoutMs: 30_000, what: "the spawner to end" });
}
