/**
 * A process whose output the Run reads as it comes (an agent's Stage, a Check), started by the
 * spawner (ADR 0350) or, as git's are, directly when no spawner can run. Either way it leads a
 * process group of its own (`detached`), so the Run signals `-pid` itself: the kill, the time limit
 * and the exit hooks do not go through the spawner. What the Run sees is the shape of a
 * ChildProcess it needs: `pid` once started ('spawn'), stdout and stderr as streams (stdout with
 * flow control: a full reader pauses the process's pipe in the spawner), 'exit', then 'close' once
 * both streams are read to their end, or 'error' when it never started.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { closeSync, openSync } from "node:fs";
import { Readable } from "node:stream";
import { callSpawner, countCpu, countDirect, startsDirectly, tellSpawner } from "./spawner";
import type { ProcessKind, SpawnerMessage } from "./spawner";

export interface StreamedCall {
  kind: ProcessKind;
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; null: no stdin (or `stdinFile`'s). */
  input: string | null;
  /** stdin is this file, read from its start (the caller may remove it once 'spawn' or 'error' is seen). */
  stdinFile?: string;
  /**
   * Left to finish by itself when the caller's process dies (its spawner ends then), not killed
   * with it: the sandbox's `git http-backend`, which has its whole body (ADR 0190).
   */
  outlivesCaller?: boolean;
}

type Ending = [code: number | null, signal: NodeJS.Signals | null];

export interface StreamedProcess {
  /** Known once the process has started ('spawn'). */
  readonly pid: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  once(event: "spawn", listener: () => void): this;
  once(event: "error", listener: (error: NodeJS.ErrnoException) => void): this;
  once(event: "exit" | "close", listener: (...ending: Ending) => void): this;
  on(event: "exit" | "close", listener: (...ending: Ending) => void): this;
  on(event: "error", listener: (error: NodeJS.ErrnoException) => void): this;
}

class Streamed extends EventEmitter implements StreamedProcess {
  pid: number | undefined;
  private full = false;
  /** Tells whatever feeds stdout to stop or go on (the spawner, or the direct child's pipe). */
  flow: (go: boolean) => void = () => undefined;
  readonly stdout = new Readable({
    read: () => {
      if (!this.full) return;
      this.full = false;
      this.flow(true);
    },
  });
  readonly stderr = new Readable({ read: () => undefined });

  out(fd: number, data: Uint8Array): void {
    const chunk = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (fd === 2) {
      this.stderr.push(chunk);
      return;
    }
    if (this.stdout.push(chunk) || this.full) return;
    this.full = true;
    this.flow(false);
  }

  started(pid: number): void {
    this.pid = pid;
    this.emit("spawn");
  }

  failed(message: string, code: string | null): void {
    const error: NodeJS.ErrnoException = new Error(message);
    if (code) error.code = code;
    this.emit("error", error);
  }

  /** 'close' after both streams have been read to their end, as a ChildProcess's. */
  closed(...ending: Ending): void {
    let open = 2;
    const one = (): void => {
      open -= 1;
      if (open === 0) this.emit("close", ...ending);
    };
    this.stdout.once("end", one);
    this.stderr.once("end", one);
    this.stdout.push(null);
    this.stderr.push(null);
  }
}

/** Starts the process through the spawner, or directly when it cannot (see spawner.ts). */
export function spawnStreamed(call: StreamedCall): StreamedProcess {
  const p = new Streamed();
  // The Run's own environment decides: a Stage's or a Check's is filtered.
  if (startsDirectly(process.env)) adoptDirect(p, call);
  else viaSpawner(p, call);
  return p;
}

function viaSpawner(p: Streamed, call: StreamedCall): void {
  const input = call.input === null ? null : Buffer.from(call.input, "utf8");
  const id = callSpawner({
    kind: call.kind,
    request: {
      stream: true,
      command: call.command,
      args: [...call.args],
      cwd: call.cwd,
      env: call.env,
      input,
      stdinFile: call.stdinFile ?? null,
      outlives: call.outlivesCaller === true,
    },
    onMessage(m: SpawnerMessage) {
      if (typeof m.spawned === "number") p.started(m.spawned);
      else if (typeof m.error === "string") {
        p.failed(m.error, typeof m.errno === "string" ? m.errno : null);
        return true;
      } else if (m.data instanceof Uint8Array) p.out(m.fd === 2 ? 2 : 1, m.data);
      else if (Array.isArray(m.exit)) {
        countCpu(call.kind, m.cpuMs);
        p.emit("exit", ...(m.exit as Ending));
      } else if (Array.isArray(m.close)) {
        p.closed(...(m.close as Ending));
        return true;
      }
      return false;
    },
    onLost(why, started) {
      if (!started && p.pid === undefined) {
        adoptDirect(p, call);
        return;
      }
      // The spawner is gone with the process perhaps running: its group goes too (unless it is to
      // outlive us), and the call ends.
      if (p.pid !== undefined && !call.outlivesCaller) killGroup(p.pid);
      p.stderr.push(Buffer.from(`\n[ticket-runner: ${why}]\n`));
      p.emit("exit", null, null);
      p.closed(null, null);
    },
  });
  p.flow = (go) => tellSpawner(id, go ? { resume: true } : { pause: true });
}

function adoptDirect(p: Streamed, call: StreamedCall): void {
  countDirect(call.kind);
  let child: ChildProcess;
  let file: number | null = null;
  try {
    if (call.stdinFile) file = openSync(call.stdinFile, "r");
    child = spawn(call.command, call.args, {
      cwd: call.cwd,
      env: call.env,
      detached: true,
      shell: false,
      stdio: [file ?? (call.input === null ? "ignore" : "pipe"), "pipe", "pipe"],
      windowsHide: true,
    });
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    queueMicrotask(() => p.failed(error.message, error.code ?? null));
    return;
  } finally {
    // The process has its own copy of the descriptor.
    if (file !== null) closeSync(file);
  }
  child.once("error", (e: NodeJS.ErrnoException) => {
    if (child.pid === undefined) p.failed(e.message, e.code ?? null);
  });
  if (child.pid === undefined) return;
  const pid = child.pid;
  queueMicrotask(() => p.started(pid));
  p.flow = (go) => (go ? child.stdout?.resume() : child.stdout?.pause());
  child.stdout?.on("data", (d: Buffer) => p.out(1, d));
  child.stderr?.on("data", (d: Buffer) => p.out(2, d));
  child.once("exit", (...ending: Ending) => p.emit("exit", ...ending));
  child.once("close", (...ending: Ending) => p.closed(...ending));
  if (child.stdin && call.input !== null) {
    // The process may exit before it reads all of its input: not an error of ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(call.input);
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is already gone
  }
}
