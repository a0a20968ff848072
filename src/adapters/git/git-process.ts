/**
 * Where the Run's git processes start (ADR 0261). By default through the git spawner, one small
 * long-lived Node process per Run process (spawner-source.ts): libuv starts a process by forking
 * the one that asks, which costs time in proportion to its memory and stops its event loop
 * meanwhile (measured: ~1 ms at 43 MB, 2-3 ms at 350 MB, 6 ms in a loaded Run), so the big Run
 * process asks the small one. `TICKET_RUNNER_GIT_SPAWN=direct` in the environment, or a spawner
 * that cannot start (a runtime with no `node -e`), starts git from this process instead: same
 * argv, same environment, same outcome.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { SPAWNER_SOURCE } from "./spawner-source";

export interface GitProcessCall {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to git's stdin, which is then closed; without it git reads an empty stdin. */
  input?: string | Buffer;
  /** git is stopped (SIGKILL) after this long without output. */
  idleMs: number;
}

export interface GitProcessResult {
  /** null when git did not exit by itself (stopped, killed, or never started). */
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

interface Request {
  id: number;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: Uint8Array | null;
  idleMs: number;
}

interface Reply {
  id: number;
  code: number | null;
  signal: string | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
  error: string | null;
  idle: boolean;
}

/**
 * A spawner with no call in flight for this long is let go (it exits), so nothing of ours lingers
 * beside an idle extension host; the next call starts a new one (~40 ms of CPU and a fork of the
 * big process). Longer than a Run's own quiet gaps (the claim's settle, an agent Stage, a CI poll):
 * at one second the spawner of a busy Run was started again several times a ticket (ADR 0311).
 * A command lets it go when it ends (letGoOfGitSpawner).
 */
export const SPAWNER_QUIET_MS = 10_000;

const started = { spawner: 0, direct: 0, spawners: 0, spawnersEnded: 0 };

/**
 * How many git processes this process has started each way, and how many spawners started and
 * ended, since it began (benches print them, and wait for the spawners' end to read their CPU).
 */
export function gitProcessCounts(): { spawner: number; direct: number; spawners: number; spawnersEnded: number } {
  return { ...started };
}

/** Runs `git args` and resolves with its outcome, whatever it is; never rejects. */
export function runGitProcess(args: string[], call: GitProcessCall): Promise<GitProcessResult> {
  const input = call.input === undefined ? null : typeof call.input === "string" ? Buffer.from(call.input, "utf8") : call.input;
  const request: Omit<Request, "id"> = { command: "git", args, cwd: call.cwd, env: call.env, input, idleMs: call.idleMs };
  const direct = call.env.TICKET_RUNNER_GIT_SPAWN === "direct" || spawner.broken;
  return (direct ? runDirect(request) : spawner.run(request)).then(toResult);
}

function toResult(r: Reply & { idleMs?: number }): GitProcessResult {
  const stdout = Buffer.from(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength);
  const said = Buffer.from(r.stderr.buffer, r.stderr.byteOffset, r.stderr.byteLength).toString("utf8");
  if (r.error !== null && r.code === null) return { code: null, stdout, stderr: `${said}${said ? "\n" : ""}${r.error}` };
  if (r.idle) return { code: null, stdout, stderr: `${said}\n(ticket-runner stopped git: no output for ${r.idleMs ?? "its time limit in"} ms)` };
  return { code: r.code, stdout, stderr: said };
}

/** One git started from this process (the fallback, and the way the spawner itself does it). */
function runDirect(req: Omit<Request, "id">): Promise<Reply & { idleMs: number }> {
  started.direct += 1;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let idle = false;
    let error: string | null = null;
    let settled = false;
    let child: ChildProcess;
    const finish = (code: number | null, signal: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ id: 0, code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), error, idle, idleMs: req.idleMs });
    };
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        child.kill("SIGKILL");
      }, req.idleMs);
    };
    try {
      child = spawn(req.command, req.args, { cwd: req.cwd, env: req.env, stdio: [req.input === null ? "ignore" : "pipe", "pipe", "pipe"] });
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
      finish(null, null);
      return;
    }
    arm();
    child.stdout!.on("data", (d: Buffer) => {
      out.push(d);
      arm();
    });
    child.stderr!.on("data", (d: Buffer) => {
      err.push(d);
      arm();
    });
    child.on("error", (e) => {
      error = e.message;
      // A process that never started (a cwd that is gone) may not report a close.
      if (child.pid === undefined) finish(null, null);
    });
    child.on("close", (code, signal) => finish(code, signal));
    if (child.stdin && req.input !== null) {
      // git may exit before it reads all of its input (a bad argument): not an error of ours.
      child.stdin.on("error", () => undefined);
      child.stdin.end(req.input);
    }
  });
}

class Spawner {
  /** Set once the spawner could not be started at all: every later call starts git directly. */
  broken = false;
  private child: ChildProcess | null = null;
  /** Whether the current spawner said it is ready (one that never did started no git, and may be a runtime without `node -e`). */
  private ready = false;
  private nextId = 1;
  private quiet: NodeJS.Timeout | undefined;
  private readonly pending = new Map<number, { req: Request; resolve: (r: Reply & { idleMs: number }) => void }>();

  run(req: Omit<Request, "id">): Promise<Reply & { idleMs: number }> {
    clearTimeout(this.quiet);
    const child = this.child ?? this.start();
    const full: Request = { ...req, id: this.nextId++ };
    return new Promise((resolve) => {
      if (this.pending.size === 0) child.channel?.ref();
      this.pending.set(full.id, { req: full, resolve });
      child.send(full, (error) => {
        if (!error) {
          started.spawner += 1;
          return;
        }
        if (!this.pending.delete(full.id)) return;
        // Never delivered, so never started: start it here (the spawner's end is reported by its exit).
        void runDirect(full).then(resolve);
      });
    });
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
    started.spawners += 1;
    // The spawner never keeps the Run's process alive: only a call in flight does.
    child.unref();
    child.channel?.unref();
    child.on("message", (m: Reply | { ready: true }) => {
      if ("ready" in m) {
        this.ready = true;
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) {
        child.channel?.unref();
        this.quiet = setTimeout(() => this.letGo(child), SPAWNER_QUIET_MS).unref();
      }
      p.resolve({ ...m, idleMs: p.req.idleMs });
    });
    child.on("error", (e) => this.lost(child, `the git spawner failed: ${e.message}`));
    child.on("exit", (code, signal) => {
      started.spawnersEnded += 1;
      this.lost(child, `the git spawner ended (${signal ?? `exit ${code}`})`);
    });
    return child;
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
    const exited =
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));
    this.letGo(child);
    // Bounded: a spawner that does not exit at once is left to exit by itself (it does when the channel closes).
    // The timer is not unref'd: the spawner is, so this timer is what keeps the process alive until
    // the spawner's exit is seen; unref'd, Node ended a Run here with exit code 0 before it returned its own.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
  }

  /**
   * The spawner is gone. When it never said it was ready, it started no git (it could not run):
   * its calls start directly, and so does every later call. Otherwise its calls in flight may have
   * started git, so they end with no exit code, and the next call starts a new spawner.
   */
  private lost(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    if (!this.ready) {
      this.broken = true;
      for (const p of pending) void runDirect(p.req).then(p.resolve);
      return;
    }
    for (const p of pending)
      p.resolve({
        id: p.req.id,
        code: null,
        signal: null,
        stdout: new Uint8Array(0),
        stderr: new Uint8Array(0),
        error: why,
        idle: false,
        idleMs: p.req.idleMs,
      });
  }
}

const spawner = new Spawner();

/**
 * A command that is done with git lets the spawner go at once rather than after its quiet time, and
 * waits for it to exit: nothing of the Run outlives it, and its gits' CPU is counted as the Run's.
 */
export function letGoOfGitSpawner(): Promise<void> {
  return spawner.letGoNow();
}
