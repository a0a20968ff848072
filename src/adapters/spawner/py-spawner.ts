/**
 * The Python spawner's client (ADR 0480): the Run's calls whose output is kept (git) start through
 * a small long-lived Python process (py-spawner-source.ts), which starts each with posix_spawn
 * (~1 ms of its CPU a call, frames included, where the Node spawner's fork costs 6–9 ms). Streamed calls (agents,
 * Checks, the sandbox's http-backend) keep the Node spawner (spawner.ts), and so do kept calls when
 * no python3 ≥ 3.8 is on PATH or it does not start (said once, as a process warning), or on
 * Windows. Same lifetime as the Node spawner (ADR 0311): let go after SPAWNER_QUIET_MS without a
 * call, or when a command ends.
 */
import type { ChildProcessByStdio } from "node:child_process";
import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import path from "node:path";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { z } from "zod";
import { encodeFrame, FrameError, FrameReader } from "./frames";
import type { Frame } from "./frames";
import { PY_SPAWNER_SOURCE } from "./py-spawner-source";
import { countCpu, countPy, countSpawnerEnded, countSpawnerStarted, letGoAlsoOf, letGoAndSeeExit, SPAWNER_QUIET_MS } from "./spawner";
import type { ProcessKind } from "./spawner";

/** A call whose output is kept: stdin is `input` then closed (/dev/null when null); `idleMs` without output stops it (SIGKILL). */
export interface KeptCall {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: Uint8Array | null;
  idleMs: number;
}

export interface KeptReply {
  code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Why it never started (`spawn git ENOENT`), else null. */
  error: string | null;
  idle: boolean;
}

/** The reply, or the spawner was lost: `started` false means the call started nothing and may be started another way. */
export type KeptOutcome = { reply: KeptReply } | { lost: string; started: boolean };

const Ready = z.object({ ready: z.literal(true) });
const Reply = z.object({
  id: z.number().int(),
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  error: z.string().nullable(),
  idle: z.boolean(),
  cpuMs: z.number().nullable(),
});

type PyProcess = ChildProcessByStdio<Writable, Readable, null>;

interface Pending {
  kind: ProcessKind;
  resolve(outcome: KeptOutcome): void;
}

class PySpawner {
  /** Set once python3 could not be found or started, or never said it was ready: every later call goes the Node way. */
  broken = process.platform === "win32";
  /** python3's path, looked up once (undefined: not yet). */
  private python: string | null | undefined;
  private child: PyProcess | null = null;
  private ready = false;
  private nextId = 1;
  private quiet: NodeJS.Timeout | undefined;
  private readonly pending = new Map<number, Pending>();

  call(call: KeptCall, kind: ProcessKind): Promise<KeptOutcome> {
    const args = nulEnded(call.args);
    const env = nulEnded(Object.entries(call.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`])));
    // A NUL cannot travel in the args' or env's payload (and no process can take one): the Node way says why.
    if (this.broken || args === null || env === null || `${call.command}${call.cwd}`.includes("\0")) {
      return Promise.resolve({ lost: "not for the Python spawner", started: false });
    }
    if (this.python === undefined) this.python = findPython(process.env.PATH);
    if (this.python === null) {
      this.giveUp("no python3 on PATH");
      return Promise.resolve({ lost: "no python3 on PATH", started: false });
    }
    clearTimeout(this.quiet);
    const child = this.child ?? this.start(this.python);
    if (this.pending.size === 0) holdProcess(child, true);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { kind, resolve });
      const payloads: Uint8Array[] = [Buffer.from(args, "utf8"), Buffer.from(env, "utf8")];
      if (call.input !== null) payloads.push(Buffer.from(call.input.buffer, call.input.byteOffset, call.input.byteLength));
      child.stdin.write(encodeFrame({ id, command: call.command, cwd: call.cwd, idleMs: call.idleMs, input: call.input !== null }, payloads));
    });
  }

  private start(python: string): PyProcess {
    // Each call brings its own environment and cwd; `-I -S`: no site, no PYTHON* variables, no user packages.
    const child = spawn(python, ["-I", "-S", "-c", PY_SPAWNER_SOURCE], { cwd: "/", stdio: ["pipe", "pipe", "ignore"], env: { PATH: process.env.PATH } });
    this.child = child;
    this.ready = false;
    countSpawnerStarted();
    // Never keeps the Run's process alive: only a call in flight does (holdProcess).
    child.unref();
    holdProcess(child, false);
    // A write to a spawner that is gone: its 'exit' ends the calls.
    child.stdin.on("error", () => undefined);
    const reader = new FrameReader();
    child.stdout.on("data", (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch (e) {
        child.kill("SIGKILL");
        this.lost(child, e instanceof FrameError ? e.message : "the Python spawner's output could not be read");
        return;
      }
      for (const frame of frames) this.onFrame(child, frame);
    });
    let ended = false;
    const end = (why: string): void => {
      if (ended) return;
      ended = true;
      countSpawnerEnded();
      this.lost(child, why);
    };
    child.on("error", (e) => end(`the Python spawner failed: ${e.message}`));
    child.on("exit", (code, signal) => end(`the Python spawner ended (${signal ?? `exit ${code}`})`));
    return child;
  }

  private onFrame(child: PyProcess, frame: Frame): void {
    // Only the first frame may say ready (a failed zod parse of every reply would cost its issue objects).
    if (!this.ready) {
      if (!Ready.safeParse(frame.header).success) {
        child.kill("SIGKILL");
        this.lost(child, "the Python spawner did not say it was ready");
        return;
      }
      this.ready = true;
      return;
    }
    const parsed = Reply.safeParse(frame.header);
    if (!parsed.success || frame.payloads.length !== 2) {
      child.kill("SIGKILL");
      this.lost(child, "the Python spawner sent a reply of another shape");
      return;
    }
    const r = parsed.data;
    const p = this.pending.get(r.id);
    if (!p) return;
    this.pending.delete(r.id);
    countPy(p.kind);
    countCpu(p.kind, r.cpuMs);
    const [stdout, stderr] = frame.payloads as [Buffer, Buffer];
    p.resolve({ reply: { code: r.code, signal: r.signal, stdout, stderr, error: r.error, idle: r.idle } });
    this.settle(child);
  }

  /** With no call in flight, the Python spawner stops holding the process and goes after its quiet time. */
  private settle(child: PyProcess): void {
    if (this.pending.size > 0 || this.child !== child) return;
    holdProcess(child, false);
    clearTimeout(this.quiet);
    this.quiet = setTimeout(() => this.letGo(child), SPAWNER_QUIET_MS).unref();
  }

  /** Its stdin's end tells it to exit; only this side knows that no call is on its way. */
  private letGo(child: PyProcess): void {
    if (this.child !== child || this.pending.size > 0) return;
    this.child = null;
    child.stdin.end();
  }

  /** As the Node spawner's (spawner.ts): lets a quiet Python spawner go now and resolves once it has exited, bounded at 2 s. */
  async letGoNow(): Promise<void> {
    const child = this.child;
    if (!child || this.pending.size > 0) return;
    clearTimeout(this.quiet);
    await letGoAndSeeExit(child, () => this.letGo(child));
  }

  /**
   * The Python spawner is gone. One that never said it was ready started nothing (python3 older
   * than 3.8, or it could not run the program): its calls and every later one go the Node way.
   */
  private lost(child: PyProcess, why: string): void {
    if (this.child !== child) return;
    this.child = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    if (!this.ready) this.giveUp(why);
    for (const p of pending) p.resolve({ lost: why, started: this.ready });
  }

  /** Every later call goes the Node way; the log says so once. */
  private giveUp(why: string): void {
    if (this.broken) return;
    this.broken = true;
    process.emitWarning(`python3 could not start the Run's git (${why}); git starts through the Node spawner`, { code: "TICKET_RUNNER_NO_PYTHON" });
  }
}

/**
 * The first python3 on PATH that is a program, not a script: a pyenv (or asdf) shim is a shell
 * script that runs pyenv on each start and takes a lock; the interpreter behind it is later on
 * PATH (or is not used). Looked up once per process.
 */
export function findPython(pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const file = path.join(dir, "python3");
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      const fd = openSync(file, "r");
      const magic = Buffer.alloc(2);
      try {
        readSync(fd, magic, 0, 2, 0);
      } finally {
        closeSync(fd);
      }
      if (magic.toString("latin1") !== "#!") return file;
    } catch {
      // Not there, not a program we may run, or not readable: the next one.
    }
  }
  return null;
}

/** Whether the Python spawner's pipes keep this process alive (they do while a call is in flight). */
function holdProcess(child: PyProcess, hold: boolean): void {
  for (const stream of [child.stdout, child.stdin] as unknown as Socket[]) {
    if (hold) stream.ref();
    else stream.unref();
  }
}

/** Each text ended by a NUL byte, or null when one holds a NUL itself. */
function nulEnded(texts: readonly string[]): string | null {
  let out = "";
  for (const t of texts) {
    if (t.includes("\0")) return null;
    out += `${t}\0`;
  }
  return out;
}

const pySpawner = new PySpawner();
letGoAlsoOf(() => pySpawner.letGoNow());

/** Whether kept calls may go to the Python spawner: not when it could not start, nor when `TICKET_RUNNER_GIT_SPAWN=node` asks for the Node one. */
export function pySpawnerUsable(env: NodeJS.ProcessEnv): boolean {
  return env.TICKET_RUNNER_GIT_SPAWN !== "node" && !pySpawner.broken;
}

/** Starts one kept call through the Python spawner (starting it if need be). Never rejects. */
export function callPySpawner(call: KeptCall, kind: ProcessKind): Promise<KeptOutcome> {
  return pySpawner.call(call, kind);
}
