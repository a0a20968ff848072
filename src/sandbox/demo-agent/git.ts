/**
 * git for the demo agent: argv only (never a shell), LC_ALL=C, and an identity of its own given
 * in the environment, so no global git config is needed and a commit is never a person's.
 */
import type * as childProcess from "node:child_process";

const DEMO_AGENT_IDENTITY = { name: "Ticket Runner demo agent", email: "demo-agent@ticket-runner.invalid" };
export const TEAMMATE_IDENTITY = { name: "A. Teammate", email: "teammate@ticket-runner.invalid" };

export interface GitCallOptions {
  input?: string;
  env?: Record<string, string>;
  identity?: { name: string; email: string };
  /** Resolve on any exit code instead of throwing. */
  allowFail?: boolean;
}

export interface GitOut {
  code: number;
  stdout: string;
  stderr: string;
}

export class DemoGitError extends Error {}

/**
 * node:child_process is required at the first git call, not at start (ADR 0494): the verify Stage,
 * half of a ticket's agent runs, starts no git, and its process is spared the module's load.
 * `require`, not `import()`: esbuild keeps a builtin's `import()` as one, and that starts Node's ESM loader.
 */
function execFile(...args: Parameters<typeof childProcess.execFile>): ReturnType<typeof childProcess.execFile> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- evaluated only when git is called (above)
  return (require("node:child_process") as typeof childProcess).execFile(...args);
}

export function gitIn(cwd: string, args: string[], opts: GitCallOptions = {}): Promise<GitOut> {
  const who = opts.identity ?? DEMO_AGENT_IDENTITY;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_EDITOR: "true",
    GIT_SEQUENCE_EDITOR: "true",
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    ...opts.env,
  };
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      // No auto-maintenance after a commit or a rebase: one more git process a Stage, for a clone the demo does not keep.
      ["-c", "commit.gpgsign=false", "-c", "core.editor=true", "-c", "maintenance.auto=false", ...args],
      { cwd, env, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        const out = { code, stdout: String(stdout), stderr: String(stderr) };
        if (code !== 0 && !opts.allowFail)
          reject(new DemoGitError(`git ${args.slice(0, 3).join(" ")} failed (${code}): ${out.stderr.trim() || out.stdout.trim()}`));
        else resolve(out);
      },
    );
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(opts.input ?? "");
  });
}

export async function gitText(cwd: string, args: string[], opts: GitCallOptions = {}): Promise<string> {
  return (await gitIn(cwd, args, opts)).stdout.trim();
}

/** Env that makes git send a token as basic auth without it appearing on any command line. */
export function tokenEnv(token: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const count = Number(base.GIT_CONFIG_COUNT ?? "0") || 0;
  return {
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: "http.extraHeader",
    [`GIT_CONFIG_VALUE_${count}`]: `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
  };
}
