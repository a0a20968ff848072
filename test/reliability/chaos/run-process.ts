/**
 * `node dist/cli.js run` as a real child process, and the kill of a vanished Host: every process
 * the Run started (its git calls, its Stages, which sit in their own process groups, and anything
 * they started) is frozen with SIGSTOP and then SIGKILLed, as when a VM is reclaimed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

export const CLI = resolve(__dirname, "../../../dist/cli.js");
let cli = CLI;

/** A long run uses its own copy of the bundles, so a rebuild of dist/ meanwhile cannot change what it tests. */
export function useCli(path: string): void {
  cli = path;
}

export interface RunProcess {
  child: ChildProcess;
  pid: number;
  startedAt: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (null when a signal ended it) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startRun(cwd: string, env: Record<string, string>, args: string[] = []): RunProcess {
  const child = spawn(process.execPath, [cli, "run", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once("close", (code, signal) => res({ code, signal })));
  if (child.pid === undefined) throw new Error("could not start the CLI");
  return { child, pid: child.pid, startedAt: Date.now(), stdout: () => out, stderr: () => err, exited };
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(rest[1]);
  } catch {
    return null;
  }
}

/** Every live descendant of `root` (children, grandchildren, ... whatever group they are in). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const ppid = parentOf(pid);
    if (ppid === null) continue;
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const p = queue.shift()!;
    for (const c of children.get(p) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * The Host vanishes: the Run and every process under it stop at once (frozen first, so nothing
 * can start a new child between the look and the kill), then are killed. Returns how many died.
 */
export async function killTree(run: RunProcess): Promise<number> {
  signal(run.pid, "SIGSTOP");
  const frozen = new Set<number>();
  for (let round = 0; round < 5; round++) {
    const found = descendants(run.pid).filter((p) => !frozen.has(p));
    if (found.length === 0) break;
    for (const p of found) {
      signal(p, "SIGSTOP");
      frozen.add(p);
    }
  }
  for (const p of frozen) signal(p, "SIGKILL");
  signal(run.pid, "SIGKILL");
  await run.exited;
  return frozen.size + 1;
}
