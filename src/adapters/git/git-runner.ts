/**
 * Runs the git CLI (git-process.ts, ADR 0261): argv arrays (never a shell), LC_ALL=C so messages can be
 * read, no prompts, an explicit identity for the commits the product itself makes, secrets removed
 * from every message that leaves this file. Every call is hardened (git-hardening.ts): the
 * repository's hooks and configured programs never run, and no token is in its environment.
 */
import { Failure } from "../../core/errors";
import { redactSecrets, secretEnv } from "../../core/redact";
import { CLONE_CONFIG, gitSafeEnv } from "./git-hardening";
import { configListingRemembered, driverOverrides } from "./driver-overrides";
import { runGitProcess } from "./git-process";

export interface GitIdentity {
  name: string;
  email: string;
}

export const DEFAULT_GIT_IDENTITY: GitIdentity = { name: "Ticket Runner", email: "ticket-runner@users.noreply.github.com" };

export interface GitRunnerOptions {
  /** Commits the product makes (State snapshots, lock, rebases) carry this identity. */
  identity?: GitIdentity;
  /** The Run's token: only ever removed from messages here; no call of this runner is given it. */
  token?: string;
  /** Extra environment (tests point GIT_CONFIG_GLOBAL elsewhere, for instance). */
  env?: Record<string, string | undefined>;
  /** Guard against a hung call: git is stopped after this long without output. Default 10 minutes. */
  timeoutMs?: number;
  /** `-c` entries for every call. Default: CLONE_CONFIG (the clone's hooks and programs off). */
  config?: readonly string[];
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
  private readonly config: readonly string[];

  constructor(readonly options: GitRunnerOptions = {}) {
    const identity = options.identity ?? DEFAULT_GIT_IDENTITY;
    this.timeoutMs = options.timeoutMs ?? 10 * 60_000;
    this.config = options.config ?? CLONE_CONFIG;
    this.baseEnv = {
      ...gitSafeEnv({ ...process.env, ...options.env }),
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
  }

  /**
   * The committer a ref's reflog line names when this runner's git writes it (ident.c fmt_ident),
   * with its time as this process's clock and zone: null when that is not certain (a
   * GIT_COMMITTER_DATE, another TZ for git, a name or email git would trim or refuse).
   */
  reflogCommitter(): string | null {
    const env = this.baseEnv;
    if (env.GIT_COMMITTER_DATE !== undefined || env.TZ !== process.env.TZ) return null;
    const name = env.GIT_COMMITTER_NAME ?? "";
    const email = env.GIT_COMMITTER_EMAIL ?? "";
    // git trims these from both ends (ident.c crud()) and refuses angle brackets inside.
    const crud = (c: string): boolean => c <= " " || ".,:;<>\"\\'".includes(c);
    const plain = (text: string): boolean =>
      text !== "" && !crud(text[0]!) && !crud(text[text.length - 1]!) && ![...text].some((c) => c < " " || c === "<" || c === ">");
    return plain(name) && plain(email) ? `${name} <${email}>` : null;
  }

  /** Text that may carry a secret, made safe for a log or an error. */
  redact(text: string): string {
    return redactSecrets(text, this.secretsEnv());
  }

  /** The variables whose values are secrets to mask, the token this runner sends among them. */
  secretsEnv(): Record<string, string | undefined> {
    return secretEnv(process.env, this.options.token || undefined);
  }

  /** Runs git and resolves whatever the exit code (null: stopped, or never started). */
  async raw(args: string[], call: GitCall): Promise<GitOutput> {
    const env = call.env ? { ...this.baseEnv, ...call.env } : this.baseEnv;
    const config = this.config.flatMap((c) => ["-c", c]);
    // In the clone, the filters and merge drivers its config names are switched off too (ADR 0223);
    // the private directory's runner has a config of its own and nothing to switch off.
    const drivers = this.options.config ? {} : await driverOverrides(call.cwd, config, env);
    return runGitProcess([...config, ...args], { cwd: call.cwd, env: { ...env, ...drivers }, input: call.input, idleMs: call.timeoutMs ?? this.timeoutMs });
  }

  /**
   * `git config -z --show-origin --list` in `cwd`, whatever its exit code; in the clone, the filter
   * and merge names it shows are remembered for the calls after it (driver-overrides.ts, ADR 0509).
   */
  async configListing(cwd: string): Promise<GitOutput> {
    const config = this.config.flatMap((c) => ["-c", c]);
    if (this.options.config) return this.raw(["config", "-z", "--show-origin", "--list"], { cwd });
    return configListingRemembered(cwd, config, this.baseEnv, this.timeoutMs);
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
  return /stale info|fetch first|non-fast-forward|cannot lock ref|failed to update ref|incorrect old value|reference already exists|failed to lock|is at [0-9a-f]+ but expected/i.test(
    stderr,
  );
}
