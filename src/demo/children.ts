/**
 * The processes the demo starts (sandbox, `ticket-runner run`/`board`, code-server), tracked by
 * pid and stopped by pid, never by name. Each one's pid and OS start time go into demo.json as it
 * starts, so a demo that was SIGKILLed can have its leftovers stopped by the next start, and only
 * those: a recycled pid has a different start time.
 */
import { spawn } from "node:child_process";
import type { ChildProcess, StdioOptions } from "node:child_process";
import type { ChildRecord } from "./folder";

export interface StartTimes {
  processStartTime(pid: number): Promise<string | null>;
}

export interface DemoChild {
  readonly what: string;
  readonly pid: number;
  readonly group: boolean;
  readonly process: ChildProcess;
  /** The exit code, or 128 + signal number when a signal ended it. */
  readonly exited: Promise<number>;
  isRunning(): boolean;
}

export interface SpawnChildOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  /** Its own process group: stopped with everything it started, and out of reach of the terminal's Ctrl+C. */
  group: boolean;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

function signal(pid: number, group: boolean, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(group ? -pid : pid, sig);
    return true;
  } catch {
    return false; // ESRCH: already gone
  }
}

export class DemoChildren {
  private readonly live = new Set<DemoChild>();
  private readonly records = new Map<number, ChildRecord>();
  private exitHooked = false;

  constructor(
    private readonly times: StartTimes,
    /** Called with every live child whenever the set changes (the demo writes them to demo.json). */
    private readonly onChange: (records: ChildRecord[]) => void,
  ) {}

  async spawn(what: string, command: string, args: string[], opts: SpawnChildOptions): Promise<DemoChild> {
    this.hookExit();
    const proc = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: opts.stdio, detached: opts.group, windowsHide: true });
    const pid = proc.pid;
    if (pid === undefined) {
      const error = await new Promise<Error>((resolve) => proc.once("error", resolve));
      throw new Error(`could not start the ${what} (${command}): ${error.message}`);
    }
    let running = true;
    const exited = new Promise<number>((resolve) => {
      proc.once("exit", (code, sig) => {
        running = false;
        this.live.delete(child);
        this.records.delete(pid);
        this.onChange([...this.records.values()]);
        resolve(code ?? 128 + (sig ? (SIGNAL_NUMBERS[sig] ?? 0) : 0));
      });
    });
    const child: DemoChild = { what, pid, group: opts.group, process: proc, exited, isRunning: () => running };
    this.live.add(child);
    const startTime = await this.times.processStartTime(pid);
    if (running) {
      this.records.set(pid, { what, pid, group: opts.group, startTime });
      this.onChange([...this.records.values()]);
    }
    return child;
  }

  /** Sends `first`, then SIGKILL if it has not exited within `graceMs`. Resolves with its exit code. */
  async stop(child: DemoChild, first: NodeJS.Signals, graceMs: number): Promise<number> {
    if (!child.isRunning()) return child.exited;
    signal(child.pid, child.group, first);
    const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), graceMs).unref());
    if ((await Promise.race([child.exited, timer])) === "late") signal(child.pid, child.group, "SIGKILL");
    const code = await child.exited;
    // A group leader's helpers may outlive it by a moment; the group goes with it.
    if (child.group) signal(child.pid, true, "SIGKILL");
    return code;
  }

  /** Forwards a signal without waiting (e.g. Ctrl+C to the Run, which handles it itself). */
  send(child: DemoChild, sig: NodeJS.Signals): void {
    if (child.isRunning()) signal(child.pid, child.group, sig);
  }

  running(): DemoChild[] {
    return [...this.live];
  }

  /** If the demo itself dies (an uncaught error, process.exit), nothing it started outlives it. */
  private hookExit(): void {
    if (this.exitHooked) return;
    this.exitHooked = true;
    process.on("exit", () => {
      for (const c of this.live) signal(c.pid, c.group, "SIGTERM");
    });
  }
}

/** Stops what a previous demo started and left behind (it was SIGKILLed), verified by start time. */
export async function stopLeftovers(records: readonly ChildRecord[], times: StartTimes): Promise<string[]> {
  const stopped: string[] = [];
  // Last started first: the Run before the sandbox it talks to.
  for (const r of [...records].reverse()) {
    const now = await times.processStartTime(r.pid);
    if (now === null || r.startTime === null || now !== r.startTime) continue;
    // An orphaned Run is killed like Ctrl+C kills it (its Stages go too, its claims stay for the
    // resume); a SIGTERM would make it finish its busy Lanes first, with nobody watching.
    signal(r.pid, r.group, r.what === "Run" ? "SIGINT" : "SIGTERM");
    for (let i = 0; i < 50 && (await times.processStartTime(r.pid)) === now; i++) await new Promise((res) => setTimeout(res, 100));
    if ((await times.processStartTime(r.pid)) === now) signal(r.pid, r.group, "SIGKILL");
    stopped.push(`${r.what} (pid ${r.pid})`);
  }
  return stopped;
}
