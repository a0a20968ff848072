/**
 * The process groups of every `git http-backend` the sandbox has running (each with its
 * receive-pack or upload-pack, and any hook they run). stop() ends them all and waits; an exit
 * handler signals them too, for a sandbox process that exits without stop().
 */
import type { ChildProcess } from "node:child_process";

/** How long stop() lets a group finish after SIGTERM (git removes its lock files on it) before SIGKILL. */
const GRACE_MS = 5_000;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the whole group is gone already.
  }
}

export class ProcessGroups {
  /** Group leader pid -> resolves when the leader's pipes have closed (its helpers hold them too). */
  private readonly live = new Map<number, Promise<void>>();
  private readonly onExit = (): void => this.signalAll("SIGTERM");

  /** Tracks `child`, which must have been spawned `detached` (so it leads its own group). */
  add(child: ChildProcess): void {
    const pid = child.pid;
    if (pid === undefined) return;
    if (this.live.size === 0) process.on("exit", this.onExit);
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    this.live.set(pid, closed);
    void closed.then(() => {
      this.live.delete(pid);
      if (this.live.size === 0) process.off("exit", this.onExit);
    });
  }

  get size(): number {
    return this.live.size;
  }

  signalAll(signal: NodeJS.Signals): void {
    for (const pid of this.live.keys()) signalGroup(pid, signal);
  }

  /** SIGTERM to every group, SIGKILL to those still there after the grace period; resolves when all are gone. */
  async stopAll(graceMs = GRACE_MS): Promise<void> {
    if (this.live.size === 0) return;
    const all = Promise.all([...this.live.values()]);
    this.signalAll("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    const first = await Promise.race([all, late]);
    clearTimeout(timer);
    if (first === "late") this.signalAll("SIGKILL");
    await all;
  }
}
