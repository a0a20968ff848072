/**
 * Runs one of the project's Checks in a lane: no shell (argv as given), in its own process group
 * so a timeout kills everything it started, and the output kept (its tail, when it is huge).
 */
import { constants } from "node:os";
import type { CheckResult, Lane } from "../../ports/workspace";
import { GITHUB_TOKEN_VARS, IPC_VARS, namedIn } from "../../core/token-vars";
import { findExecutable } from "../isolation/sandbox";
import type { Sandbox } from "../isolation/sandbox";
import { spawnStreamed } from "../spawner/streamed-process";

/** Keep at most this much output: the end of a log is where a failure is explained. */
const CHECK_OUTPUT_CAP = 1024 * 1024;
/** After SIGTERM, how long the group gets before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** A display form of argv that pastes back into a POSIX shell. */
export function formatCommand(argv: string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
}

class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const over = this.size - this.cap;
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
        this.dropped += over;
      }
    }
  }
  text(): string {
    const body = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped > 0 ? `[... ${this.dropped} bytes of earlier output dropped ...]\n${body}` : body;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * Check groups still running. A check runs in its own process group (so its timeout can kill the
 * whole tree), which also means a terminal's Ctrl+C does not reach it; when this process exits
 * normally or through process.exit, the groups go with it. (A SIGKILL of the Run leaves a check to
 * finish alone; see docs/adr/0035-checks-in-their-own-process-group.md.)
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** For a front door's SIGINT handler (Ctrl+C stays a kill): every running Check goes too. */
function killAllCheckGroups(): void {
  for (const group of liveGroups) killGroup(group, "SIGKILL");
  liveGroups.clear();
}

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", killAllCheckGroups);
}

export interface RunCheckOptions {
  /** The whole environment of the Check (checkEnvironment()); the Run's own when not given. */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  outputCap?: number;
  redact?: (text: string) => string;
  /** The OS sandbox the Check runs in (ADR 0290); none: as the Run's user, beside the Run. */
  sandbox?: Sandbox;
}

/**
 * What the Checks inherit from the Run's environment by default: enough to find programs, a home,
 * a locale and a temp folder. Nothing else: the Checks run code the agent wrote (and an issue
 * author may have steered), so the Run's secrets (its GitHub token, ANTHROPIC_API_KEY, cloud keys)
 * stay out. `checkEnv` in ticket-runner.json adds names (ADR 0151).
 */
const CHECK_ENV_DEFAULT: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TERM",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "CI",
  "SYSTEMROOT",
  "COMSPEC",
  "PATHEXT",
  "WINDIR",
];

/**
 * The Checks' environment: only the allow-listed variables of `env`, and never one of the Run's
 * GitHub tokens nor a variable pointing at the session's IPC channels, whatever the list says
 * (like the agent, ADR-0051, ADR 0340).
 */
export function checkEnvironment(env: NodeJS.ProcessEnv | Record<string, string | undefined>, extra: readonly string[] = []): NodeJS.ProcessEnv {
  const allow = [...CHECK_ENV_DEFAULT, ...extra];
  const tokens = new Set<string>(GITHUB_TOKEN_VARS);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !tokens.has(name) && !namedIn(name, IPC_VARS) && namedIn(name, allow)) out[name] = value;
  return out;
}

export function runCheck(lane: Lane, argv: string[], timeoutMs: number, opts: RunCheckOptions = {}): Promise<CheckResult> {
  const command = formatCommand(argv);
  const started = Date.now();
  const redact = opts.redact ?? ((t: string) => t);
  const [file, ...args] = argv;
  if (!file) return Promise.resolve({ command, exitCode: null, timedOut: false, output: "no command given", durationMs: 0 });
  const env = opts.env ?? checkEnvironment(process.env);
  let spawnArgv = argv;
  if (opts.sandbox?.on) {
    // Inside the sandbox a missing program is only bwrap's error: say it as for any Check.
    const found = findExecutable(file, env.PATH, lane.path);
    if (!found)
      return Promise.resolve({
        command,
        exitCode: null,
        timedOut: false,
        output: `[ticket-runner: could not start ${command}: ${file} is not on the Checks' PATH]\n`,
        durationMs: 0,
      });
    spawnArgv = opts.sandbox.wrap([found, ...args], lane.path, env, "check");
  }
  return new Promise((resolve) => {
    const out = new TailBuffer(opts.outputCap ?? CHECK_OUTPUT_CAP);
    let timedOut = false;
    let settled = false;
    let exitCode: number | null = null;
    // Its own process group (the spawner's or this process's, ADR 0350): the timeout can kill the whole tree it starts.
    const child = spawnStreamed({ kind: "check", command: spawnArgv[0]!, args: spawnArgv.slice(1), cwd: lane.path, env, input: null });
    let stopWanted: "timeout" | "abort" | null = null;
    const stop = (why: "timeout" | "abort"): void => {
      if (child.pid === undefined) {
        stopWanted ??= why;
        return;
      }
      if (exitCode !== null) return;
      if (why === "timeout") timedOut = true;
      out.push(Buffer.from(`\n[ticket-runner: ${why === "timeout" ? `timed out after ${timeoutMs} ms` : "stopped"}; killing the check's process group]\n`));
      killGroup(child.pid, "SIGTERM");
      setTimeout(() => killGroup(child.pid!, "SIGKILL"), KILL_GRACE_MS).unref();
    };
    child.once("spawn", () => {
      trackGroup(child.pid!);
      if (stopWanted) stop(stopWanted);
    });
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    const onAbort = (): void => stop("abort");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({ command, exitCode, timedOut, output: redact(out.text()), durationMs: Date.now() - started });
    };
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => out.push(d));
    child.on("error", (e) => {
      out.push(Buffer.from(`[ticket-runner: could not start ${command}: ${e.message}]\n`));
      finish();
    });
    child.on("exit", (code, signal) => {
      exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null);
      if (timedOut) exitCode = null;
      // Anything the check left running in its group would hold the pipes open forever.
      if (child.pid !== undefined) {
        killGroup(child.pid, "SIGKILL");
        liveGroups.delete(child.pid);
      }
    });
    child.on("close", finish);
  });
}
