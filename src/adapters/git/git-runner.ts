/**
 * Runs the git CLI: argv arrays (never a shell), LC_ALL=C so messages can be read, no prompts,
 * an explicit identity for the commits the product itself makes, and secrets removed from every
 * message that leaves this file.
 */
import { spawn } from "node:child_process";
import { Failure } from "../../core/errors";
import { redactSecrets } from "../../core/redact";

export interface GitIdentity {
  name: string;
  email: string;
}

export const DEFAULT_GIT_IDENTITY: GitIdentity = { name: "Ticket Runner", email: "ticket-runner@users.noreply.github.com" };

export interface GitRunnerOptions {
  /** Commits the product makes (State snapshots, lock, rebases) carry this identity. */
  identity?: GitIdentity;
  /** A token for an HTTP remote; sent as a header through GIT_CONFIG_* env, never on argv. */
  token?: string;
  /** Extra environment (tests point GIT_CONFIG_GLOBAL elsewhere, for instance). */
  env?: Record<string, string | undefined>;
  /** Guard against a hung network call. Default 10 minutes. */
  timeoutMs?: number;
}

export interface GitCall {
  cwd: string;
  input?: string | Buffer;
  /** Added to (and overriding) the runner's env for this call only. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

export interface GitOutput {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export class GitRunner {
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly timeoutMs: number;

  constructor(readonly options: GitRunnerOptions = {}) {
    const identity = options.identity ?? DEFAULT_GIT_IDENTITY;
    this.timeoutMs = options.timeoutMs ?? 10 * 60_000;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...options.env,
      LC_ALL: "C",
      LANGUAGE: "C",
      GIT_TERMINAL_PROMPT: "0",
      GCM_INTERACTIVE: "never",
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_COMMITTER_NAME: identity.name,
      GIT_COMMITTER_EMAIL: identity.email,
      // Reads (status, rev-parse) must not take the index lock a person's editor may be using.
      GIT_OPTIONAL_LOCKS: "0",
    };
    if (options.token) {
      const basic = Buffer.from(`x-access-token:${options.token}`).toString("base64");
      const count = Number(env.GIT_CONFIG_COUNT ?? "0") || 0;
      env.GIT_CONFIG_COUNT = String(count + 1);
      env[`GIT_CONFIG_KEY_${count}`] = "http.extraHeader";
      env[`GIT_CONFIG_VALUE_${count}`] = `Authorization: Basic ${basic}`;
    }
    this.baseEnv = env;
  }

  /** Text that may carry a secret, made safe for a log or an error. */
  redact(text: string): string {
    return redactSecrets(text, this.secretsEnv());
  }

  /** The variables whose values are secrets to mask, the token this runner sends among them. */
  secretsEnv(): Record<string, string | undefined> {
    const extra = this.options.token ? { TICKET_RUNNER_TOKEN: this.options.token } : {};
    return { ...process.env, ...extra };
  }

  /** Runs git and resolves whatever the exit code. */
  raw(args: string[], call: GitCall): Promise<GitOutput> {
    return new Promise((resolve) => {
      const child = spawn("git", args, {
        cwd: call.cwd,
        env: call.env ? { ...this.baseEnv, ...call.env } : this.baseEnv,
        stdio: ["pipe", "pipe", "pipe"],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let settled = false;
      const timer = setTimeout(() => {
        err.push(Buffer.from(`\n(ticket-runner stopped git after ${call.timeoutMs ?? this.timeoutMs} ms)`));
        child.kill("SIGKILL");
      }, call.timeoutMs ?? this.timeoutMs);
      const finish = (code: number | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") });
      };
      child.stdout.on("data", (d: Buffer) => out.push(d));
      child.stderr.on("data", (d: Buffer) => err.push(d));
      child.on("error", (e) => {
        err.push(Buffer.from(String(e.message)));
        finish(null);
      });
      child.on("close", (code) => finish(code));
      // git may exit before reading all of stdin (e.g. on a bad argument); that is not our error.
      child.stdin.on("error", () => undefined);
      child.stdin.end(call.input ?? "");
    });
  }

  /** Runs git; resolves with stdout (trailing newline removed) or throws a redacted Failure("git"). */
  async text(args: string[], call: GitCall): Promise<string> {
    const res = await this.raw(args, call);
    if (res.code !== 0) throw this.failure(args, res);
    return res.stdout.toString("utf8").replace(/\n$/, "");
  }

  /** Exit code 0 => true, 1 => false (for --is-ancestor, diff --quiet); anything else throws. */
  async test(args: string[], call: GitCall): Promise<boolean> {
    const res = await this.raw(args, call);
    if (res.code === 0) return true;
    if (res.code === 1) return false;
    throw this.failure(args, res);
  }

  failure(args: string[], res: GitOutput): GitFailure {
    const said = this.redact((res.stderr.trim() || res.stdout.toString("utf8").trim()).slice(0, 4000));
    return new GitFailure(`git ${args.slice(0, 3).join(" ")} failed (exit ${res.code ?? "signal"}): ${said}`, said);
  }
}

/** A failed git command. `gitSaid` is git's own output (LC_ALL=C, redacted), for classifiers below. */
export class GitFailure extends Failure {
  constructor(
    message: string,
    readonly gitSaid: string,
  ) {
    super("git", message);
  }
}

/** Two processes of one Host updating the same ref at once. */
export function isRefLockContention(stderr: string): boolean {
  return /cannot lock ref|unable to update local ref|\.lock/i.test(stderr);
}

/** Messages that mean "the remote has no such ref", read with LC_ALL=C. */
export function isMissingRemoteRef(stderr: string): boolean {
  return /couldn't find remote ref|no such ref was fetched|remote ref does not exist/i.test(stderr);
}

/** Messages that mean another writer moved the ref first: re-read and try again. */
export function isLostRace(stderr: string): boolean {
  return /stale info|fetch first|non-fast-forward|cannot lock ref|failed to update ref|incorrect old value|reference already exists|failed to lock|is at [0-9a-f]+ but expected/i.test(stderr);
}
