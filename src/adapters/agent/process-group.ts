/**
 * The agent runs as the leader of its own process group (spawn `detached: true` = setsid), so one
 * signal to `-pid` reaches it and everything it started: shells, test runners, dev servers.
 * A signal to the agent's pid alone would leave its children running with nobody to read them.
 *
 * A detached group does not get the terminal's Ctrl+C, so Ctrl+C (a kill, docs/endings.md) would leave
 * Stages running with nobody to read them. Hence the registry below: every live group is SIGKILLed
 * when the Run's process exits, and front doors call `killAllStageGroups()` from their SIGINT
 * handler. A Run killed by SIGKILL cannot do either: the spawner that started the Stages (ADR 0350)
 * sees its channel close and kills their groups; Stages started directly die of EPIPE at their
 * next write to the closed stdout pipe (ADR-0052).
 */
import { spawnStreamed } from "../spawner/streamed-process";
import type { StreamedProcess } from "../spawner/streamed-process";

export interface GroupHandle {
  /** Started by the spawner (ADR 0350), or directly when none can run: its pid is known at 'spawn'. */
  child: StreamedProcess;
  /** SIGTERM to the group now, SIGKILL after `graceMs` if anything in it is still alive. Idempotent. */
  kill(graceMs: number): void;
  /** Whether any process of the group is still alive. */
  alive(): boolean;
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: the group is gone. EPERM cannot happen for our own children.
    return false;
  }
}

const live = new Set<GroupHandle>();
let exitHookInstalled = false;

/** SIGKILLs every Stage group still running. Synchronous, so it is safe in an `exit` handler. */
export function killAllStageGroups(): number {
  let n = 0;
  for (const h of live) {
    if (h.child.pid !== undefined && signalGroup(h.child.pid, "SIGKILL")) n += 1;
  }
  live.clear();
  return n;
}

function track(handle: GroupHandle): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      killAllStageGroups();
    });
  }
  live.add(handle);
  handle.child.once("close", () => live.delete(handle));
  handle.child.once("error", () => live.delete(handle));
}

export interface SpawnGroupOptions {
  cwd: string;
  env: Record<string, string>;
  stdinText: string | null;
}

export function spawnGroup(command: string, args: string[], opts: SpawnGroupOptions): GroupHandle {
  const child = spawnStreamed({ kind: "agent", command, args, cwd: opts.cwd, env: opts.env, input: opts.stdinText });
  let killTimer: NodeJS.Timeout | null = null;
  /** A kill asked for before the process had started is sent when it starts. */
  let killWanted: number | null = null;
  const handle: GroupHandle = {
    child,
    kill(graceMs) {
      const pgid = child.pid;
      if (pgid === undefined) {
        killWanted ??= graceMs;
        return;
      }
      if (killTimer !== null) return;
      if (!signalGroup(pgid, "SIGTERM")) return;
      killTimer = setTimeout(() => {
        signalGroup(pgid, "SIGKILL");
      }, graceMs);
      killTimer.unref();
    },
    alive() {
      return child.pid !== undefined && signalGroup(child.pid, 0);
    },
  };
  track(handle);
  child.once("spawn", () => {
    if (killWanted !== null) handle.kill(killWanted);
  });
  return handle;
}

/** SIGKILL whatever is left of the group (after the leader exited, its stragglers must not outlive the Stage). */
export function reapGroup(handle: GroupHandle): void {
  const pgid = handle.child.pid;
  if (pgid !== undefined) signalGroup(pgid, "SIGKILL");
  live.delete(handle);
}
