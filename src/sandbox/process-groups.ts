/**
 * The process groups of every `git http-backend` the sandbox has running (each with its
 * receive-pack or upload-pack, and any hook they run). stop() ends them all and waits; an exit
 * handler signals them too, for a sandbox process that exits without stop(). A backend is started
 * by the spawner (ADR 0391), so its pid comes a moment after the request: a signal meant for a
 * group whose pid is not known yet is sent when it is.
 */
import type { StreamedProcess } from "../adapters/spawner/streamed-process";

/** How long stop() lets a group finish after SIGTERM (git removes its lock files on it) before SIGKILL. */
const GRACE_MS = 5_000;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the whole group is gone already.
  }
}

interface Group {
  process: StreamedProcess;
  /** Resolves when the leader's pipes have closed (its helpers hold them too), or it never started. */
  closed: Promise<void>;
  /** The last signal asked for before the pid was known. */
  owed?: NodeJS.Signals;
}

export class ProcessGroups {
  private readonly live = new Set<Group>();
  private readonly onExit = (): void => this.signalAll("SIGTERM");

  /** Tracks `p`, which must lead its own process group (started `detached`, as every streamed process is). */
  add(p: StreamedProcess): void {
    const closed = new Promise<void>((resolve) => {
      p.once("close", () => resolve());
      p.once("error", () => resolve());
    });
    const group: Group = { process: p, closed };
    p.once("spawn", () => {
      if (group.owed && p.pid !== undefined) signalGroup(p.pid, group.owed);
    });
    if (this.live.size === 0) process.on("exit", this.onExit);
    this.live.add(group);
    void closed.then(() => {
      this.live.delete(group);
      if (this.live.size === 0) process.off("exit", this.onExit);
    });
  }

  get size(): number {
    return this.live.size;
  }

  signalAll(signal: NodeJS.Signals): void {
    for (const group of this.live) {
      if (group.process.pid === undefined) group.owed = signal;
      else signalGroup(group.process.pid, signal);
    }
  }

  /** SIGTERM to every group, SIGKILL to those still there after the grace period; resolves when all are gone. */
  async stopAll(graceMs = GRACE_MS): Promise<void> {
    if (this.live.size === 0) return;
    const all = Promise.all([...this.live].map((g) => g.closed));
    this.signalAll("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    const first = await Promise.race([all, late]);
    clearTimeout(timer);
    if (first === "late") this.signalAll("SIGKILL");
    await all;
  }
}
