/**
 * The spawner's client (ADR 0261, ADR 0350): one small long-lived Node process per Run process
 * (spawner-source.ts) starts the Run's processes: git (output kept, git-process.ts), and the agent's
 * Stages and the Checks (output streamed, streamed-process.ts). libuv starts a process by forking
 * the one that asks, which costs time in proportion to its memory and stops its event loop
 * meanwhile (measured: ~1 ms at 43 MB, 6.5 ms of the parent's CPU and as much of the child's at
 * 228 MB), so the big Run process asks the small one. `TICKET_RUNNER_GIT_SPAWN=direct` in the
 * environment, or a spawner that cannot start (a runtime with no `node -e`), starts them from this
 * process instead: same argv, same environment, same outcome.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { SPAWNER_SOURCE } from "./spawner-source";

/** What a process started for the Run is, for the counts the benches print. */
export type ProcessKind = "git" | "agent" | "check";

/** A message from the spawner about one call (see spawner-source.ts); `id` names the call. */
export interface SpawnerMessage {
  id: number;
  [key: string]: unknown;
}

/** One call on its way: `onMessage` gets every message of its id; it returns true on the call's last. */
interface Pending {
  kind: ProcessKind;
  request: Record<string, unknown>;
  onMessage(m: SpawnerMessage): boolean;
  /** The spawner is gone while the call was in flight; `started` says whether it may have started its process. */
  onLost(why: string, started: boolean): void;
}

/**
 * A spawner with no call in flight for this long is let go (it exits), so nothing of ours lingers
 * beside an idle extension host; the next call starts a new one (~40 ms of CPU and a fork of the
 * big process). Longer than a Run's own quiet gaps (the claim's settle, an agent Stage, a CI poll):
 * at one second the spawner of a busy Run was started again several times a ticket (ADR 0311).
 * A command lets it go when it ends (letGoOfSpawner).
 */
export const SPAWNER_QUIET_MS = 10_000;

const EMPTY = { processes: 0, cpuMs: 0 };
const counts = {
  /** Processes started through the Node spawner, the Python spawner (ADR 0480) and directly, and spawners (of both kinds) started and ended. */
  spawner: 0,
  py: 0,
  direct: 0,
  spawners: 0,
  spawnersEnded: 0,
  /** Per kind: processes started (either way), and the CPU the spawner saw them use (its reaped-children counter). */
  byKind: { git: { ...EMPTY }, agent: { ...EMPTY }, check: { ...EMPTY } } as Record<ProcessKind, { processes: number; cpuMs: number }>,
};

export type SpawnerCounts = typeof counts;

/**
 * How many processes this process has started each way and of each kind, the CPU of those the
 * spawner reaped, and how many spawners started and ended, since it began (the benches print them,
 * and wait for the spawners' end to read their CPU).
 */
export function spawnerCounts(): SpawnerCounts {
  const byKind = Object.fromEntries(Object.entries(counts.byKind).map(([k, v]) => [k, { ...v }])) as SpawnerCounts["byKind"];
  return { ...counts, byKind };
}

/** Counts a process started directly by this process (the fallback). */
export function countDirect(kind: ProcessKind): void {
  counts.direct += 1;
  counts.byKind[kind].processes += 1;
}

/** Counts a process started by the Python spawner (py-spawner.ts). */
export function countPy(kind: ProcessKind): void {
  counts.py += 1;
  counts.byKind[kind].processes += 1;
}

/** Counts a spawner of another kind (the Python spawner) started, and ended: the benches wait for every spawner's end. */
export function countSpawnerStarted(): void {
  counts.spawners += 1;
}
export function countSpawnerEnded(): void {
  counts.spawnersEnded += 1;
}

/** Counts the CPU the spawner saw a process of `kind` use. */
export function countCpu(kind: ProcessKind, cpuMs: unknown): void {
  if (typeof cpuMs === "number") counts.byKind[kind].cpuMs += cpuMs;
}

/** Whether calls start directly: asked for in the call's environment, or no spawner can run here. */
export function startsDirectly(env: NodeJS.ProcessEnv): boolean {
  return env.TICKET_RUNNER_GIT_SPAWN === "direct" || spawner.broken;
}

class Spawner {
  /** Set once the spawner could not be started at all: every later call starts directly. */
  broken = false;
  private child: ChildProcess | null = null;
  /** Whether the current spawner said it is ready (one that never did started nothing, and may be a runtime without `node -e`). */
  private ready = false;
  private nextId = 1;
  private quiet: NodeJS.Timeout | undefined;
  private readonly pending = new Map<number, Pending>();

  /** Starts a spawner when none runs; with no call in flight it is let go after its quiet time, as after any call. */
  warm(): void {
    if (this.child) return;
    this.settle(this.start());
  }

  /** Sends a call; its messages go to `pending.onMessage` until it says the call is over. Returns the call's id. */
  call(pending: Pending): number {
    clearTimeout(this.quiet);
    const child = this.child ?? this.start();
    const id = this.nextId++;
    if (this.pending.size === 0) child.channel?.ref();
    this.pending.set(id, pending);
    child.send({ ...pending.request, id }, (error) => {
      if (!error) {
        counts.spawner += 1;
        counts.byKind[pending.kind].processes += 1;
        return;
      }
      // Never delivered, so never started: the caller starts it directly.
      if (this.pending.delete(id)) pending.onLost(`the spawner did not take the call: ${error.message}`, false);
      this.settle(child);
    });
    return id;
  }

  /** A message to the spawner about a call in flight (flow control); dropped when the spawner is gone. */
  tell(id: number, message: Record<string, unknown>): void {
    if (!this.child || !this.pending.has(id)) return;
    this.child.send({ ...message, id }, () => undefined);
  }

  private start(): ChildProcess {
    const child = spawn(process.execPath, ["-e", SPAWNER_SOURCE], {
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      serialization: "advanced",
      // Each call brings its own environment; the spawner itself needs only to find programs.
      env: { PATH: process.env.PATH, SystemRoot: process.env.SystemRoot, ELECTRON_RUN_AS_NODE: "1" },
      windowsHide: true,
    });
    this.child = child;
    this.ready = false;
    counts.spawners += 1;
    // The spawner never keeps the Run's process alive: only a call in flight does.
    child.unref();
    child.channel?.unref();
    child.on("message", (m: SpawnerMessage | { ready: true }) => {
      if ("ready" in m) {
        this.ready = true;
        return;
      }
      const p = this.pending.get(m.id);
      if (!p || !p.onMessage(m)) return;
      this.pending.delete(m.id);
      this.settle(child);
    });
    child.on("error", (e) => this.lost(child, `the spawner failed: ${e.message}`));
    child.on("exit", (code, signal) => {
      counts.spawnersEnded += 1;
      this.lost(child, `the spawner ended (${signal ?? `exit ${code}`})`);
    });
    return child;
  }

  /** With no call in flight, the spawner stops holding the process and goes after its quiet time. */
  private settle(child: ChildProcess): void {
    if (this.pending.size > 0 || this.child !== child) return;
    child.channel?.unref();
    clearTimeout(this.quiet);
    this.quiet = setTimeout(() => this.letGo(child), SPAWNER_QUIET_MS).unref();
  }

  /** Lets a quiet spawner go: only this side knows that no call is on its way to it. */
  private letGo(child: ChildProcess): void {
    if (this.child !== child || this.pending.size > 0) return;
    this.child = null;
    child.disconnect();
  }

  /** Lets the spawner go now if it is quiet, and resolves once it has exited (reaped by this process). */
  async letGoNow(): Promise<void> {
    const child = this.child;
    if (!child || this.pending.size > 0) return;
    clearTimeout(this.quiet);
    await letGoAndSeeExit(child, () => this.letGo(child));
  }

  /**
   * The spawner is gone. When it never said it was ready, it started nothing (it could not run):
   * its calls start directly, and so does every later call. Otherwise its calls in flight may have
   * started their processes, and the next call starts a new spawner.
   */
  private lost(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    if (!this.ready) this.broken = true;
    for (const p of pending) p.onLost(why, this.ready);
  }
}

const spawner = new Spawner();

/** Sends one call to the spawner (starting it if need be); see `Pending`. Returns the call's id. */
export function callSpawner(pending: Pending): number {
  return spawner.call(pending);
}

/**
 * Starts the spawner now when none runs and calls would use it, so that the first process started
 * through it (a Run's first agent Stage) does not wait for the spawner's own start (~40 ms of CPU
 * and a fork of this process; 0.35–0.7 s of a first Stage's start when four Runs start together,
 * ADR 0484). Let go after SPAWNER_QUIET_MS without a call, as after any call.
 */
export function warmSpawner(): void {
  if (!startsDirectly(process.env)) spawner.warm();
}

/** Tells the spawner something about a call in flight (flow control). */
export function tellSpawner(id: number, message: Record<string, unknown>): void {
  spawner.tell(id, message);
}

/**
 * A command that is done with its processes lets the spawner go at once rather than after its quiet
 * time, and waits for it to exit: nothing of the Run outlives it, and its processes' CPU is counted
 * as the Run's.
 */
export async function letGoOfSpawner(): Promise<void> {
  await Promise.all([spawner.letGoNow(), ...[...otherSpawners].map((letGo) => letGo())]);
}

/** The other spawners' let-go (the Python spawner registers its own when it is first loaded), so a command lets go of all. */
const otherSpawners = new Set<() => Promise<void>>();

export function letGoAlsoOf(letGo: () => Promise<void>): void {
  otherSpawners.add(letGo);
}

/**
 * Lets a spawner go (`letGo`) and waits for its exit, 2 s at most: one that does not exit at once
 * is left to exit by itself (it does when its input closes). The timer is not unref'd: the spawner
 * is, so this timer is what keeps the process alive until the spawner's exit is seen; unref'd,
 * Node ended a Run here with exit code 0 before it returned its own.
 */
export async function letGoAndSeeExit(child: ChildProcess, letGo: () => void): Promise<void> {
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  letGo();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
  clearTimeout(timer);
}
