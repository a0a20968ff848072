/**
 * Where the Run's git processes start (ADR 0261, ADR 0480). By default through the Python spawner,
 * one small long-lived python3 per Run process (../spawner/py-spawner.ts) that starts git with
 * posix_spawn, whose reply carries git's exit code and whole output; when python3 is not there or
 * does not start, or with
 * `TICKET_RUNNER_GIT_SPAWN=node`, through the Node spawner (../spawner/spawner.ts), which answers
 * the same. `TICKET_RUNNER_GIT_SPAWN=direct` in the environment, or a Node spawner that cannot start
 * (a runtime with no `node -e`), starts git from this process instead: same argv, same environment,
 * same outcome.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { callPySpawner, pySpawnerUsable } from "../spawner/py-spawner";
import { callSpawner, countCpu, countDirect, startsDirectly } from "../spawner/spawner";
import type { SpawnerMessage } from "../spawner/spawner";

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

/** Listeners told the argv of every git this process starts (the benches' breakdown of a ticket's git, ADR 0430). */
const watchers = new Set<(args: readonly string[]) => void>();

/** Calls `listener` with the argv of every git this process starts from now on; the returned function stops it. */
export function watchGitProcesses(listener: (args: readonly string[]) => void): () => void {
  watchers.add(listener);
  return () => watchers.delete(listener);
}

/** Runs `git args` and resolves with its outcome, whatever it is; never rejects. */
export function runGitProcess(args: string[], call: GitProcessCall): Promise<GitProcessResult> {
  for (const w of watchers) w(args);
  const input = call.input === undefined ? null : typeof call.input === "string" ? Buffer.from(call.input, "utf8") : call.input;
  const request: Omit<Request, "id"> = { command: "git", args, cwd: call.cwd, env: call.env, input, idleMs: call.idleMs };
  if (startsDirectly(call.env)) return runDirect(request).then(toResult);
  return (pySpawnerUsable(call.env) ? throughPython(request) : throughSpawner(request)).then(toResult);
}

function throughPython(request: Omit<Request, "id">): Promise<Reply & { idleMs: number }> {
  return callPySpawner(request, "git").then((outcome) => {
    if ("reply" in outcome) return { id: 0, ...outcome.reply, idleMs: request.idleMs };
    // Never started (python3 is not there, or did not start): the Node spawner takes it.
    if (!outcome.started) return throughSpawner(request);
    // It may have started git: the call ends with no exit code.
    return { id: 0, code: null, signal: null, stdout: new Uint8Array(0), stderr: new Uint8Array(0), error: outcome.lost, idle: false, idleMs: request.idleMs };
  });
}

function throughSpawner(request: Omit<Request, "id">): Promise<Reply & { idleMs: number }> {
  return new Promise((resolve) => {
    callSpawner({
      kind: "git",
      request: { ...request },
      onMessage(m: SpawnerMessage) {
        const reply = m as unknown as Reply & { cpuMs: unknown };
        countCpu("git", reply.cpuMs);
        resolve({ ...reply, idleMs: request.idleMs });
        return true;
      },
      onLost(why, started) {
        // Never started (the spawner could not run, or never took the call): start it here.
        if (!started) {
          void runDirect(request).then(resolve);
          return;
        }
        // It may have started git: the call ends with no exit code.
        resolve({ id: 0, code: null, signal: null, stdout: new Uint8Array(0), stderr: new Uint8Array(0), error: why, idle: false, idleMs: request.idleMs });
      },
    });
  });
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
  countDirect("git");
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
