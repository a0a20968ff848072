/** Shared setup for the sandbox conformance tests: a sandbox, users, Octokit clients and git. */
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { gitEnv, initBare } from "../../../src/sandbox/git";

export interface World {
  sb: SandboxHandle;
  tokens: Record<string, string>;
  as(login: string): Octokit;
  anonymous: Octokit;
  authUrl(login: string, owner?: string, repo?: string): string;
  tmp: string;
}

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export function octokitFor(baseUrl: string, token?: string): Octokit {
  return new Octokit({ baseUrl, ...(token ? { auth: token } : {}), log: silent });
}

export const OWNER = "acme";
export const REPO = "widgets";

/** acme/widgets (public) with alice=admin, bob=write, carol=read, dave=none, the GitHub App ci-app[bot]=write; acme/secret (private) with alice=admin. */
export async function makeWorld(opts: { ciCommand?: string[] } = {}): Promise<World> {
  const sb = await startSandbox({ quiet: true });
  await sb.admin.createRepo({
    owner: OWNER,
    name: REPO,
    files: { "README.md": "# widgets\n", "src/a.txt": "one\ntwo\nthree\n" },
    ciCommand: opts.ciCommand ?? null,
  });
  await sb.admin.createRepo({ owner: OWNER, name: "secret", private: true, files: { "x.txt": "x\n" } });
  const tokens: Record<string, string> = {};
  const roles: Record<string, Record<string, "admin" | "write" | "read" | "none">> = {
    alice: { [`${OWNER}/${REPO}`]: "admin", [`${OWNER}/secret`]: "admin" },
    bob: { [`${OWNER}/${REPO}`]: "write" },
    carol: { [`${OWNER}/${REPO}`]: "read" },
    dave: {},
    "ci-app[bot]": { [`${OWNER}/${REPO}`]: "write" },
  };
  for (const [login, repos] of Object.entries(roles)) tokens[login] = (await sb.admin.addUser({ login, repos })).token;
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-test-"));
  const clients = new Map<string, Octokit>();
  return {
    sb,
    tokens,
    tmp,
    anonymous: octokitFor(sb.apiUrl),
    as(login) {
      let c = clients.get(login);
      if (!c) {
        c = octokitFor(sb.apiUrl, tokens[login] ?? login);
        clients.set(login, c);
      }
      return c;
    },
    authUrl(login, owner = OWNER, repo = REPO) {
      const u = new URL(sb.gitUrl(owner, repo));
      u.username = "x-access-token";
      u.password = tokens[login] ?? login;
      return u.toString();
    },
  };
}

export async function closeWorld(w: World | undefined): Promise<void> {
  if (!w) return;
  await w.sb.stop();
  await fsp.rm(w.tmp, { recursive: true, force: true });
}

export const gitIdentityEnv = {
  LC_ALL: "C",
  GIT_AUTHOR_NAME: "Test Author",
  GIT_AUTHOR_EMAIL: "author@example.invalid",
  GIT_COMMITTER_NAME: "Test Author",
  GIT_COMMITTER_EMAIL: "author@example.invalid",
  GIT_TERMINAL_PROMPT: "0",
  GIT_CONFIG_NOSYSTEM: "1",
};

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runGit(args: string[], cwd: string): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd, env: { ...process.env, ...gitIdentityEnv } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function gitOk(args: string[], cwd: string): Promise<string> {
  const r = await runGit(args, cwd);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Clones the repo as `login` into a fresh folder and returns its path. */
export async function cloneAs(w: World, login: string, owner = OWNER, repo = REPO): Promise<string> {
  const dir = path.join(w.tmp, `${login}-${Math.random().toString(36).slice(2, 8)}`);
  await gitOk(["clone", "--quiet", w.authUrl(login, owner, repo), dir], w.tmp);
  return dir;
}

/** Writes a file, commits it, returns the new sha. */
export async function commitFile(dir: string, file: string, text: string, message: string): Promise<string> {
  await fsp.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
  await fsp.writeFile(path.join(dir, file), text);
  await gitOk(["add", file], dir);
  await gitOk(["commit", "--quiet", "-m", message], dir);
  return gitOk(["rev-parse", "HEAD"], dir);
}

/** f.txt as a repository made for divergeFarApart starts with it. */
export const FAR_APART_LINES = "a\nb\nc\nd\ne\nf\n";

/**
 * Clones `url` (a repository whose f.txt is FAR_APART_LINES) into `<tmp>/clone`, then pushes a
 * `topic` branch changing f.txt's last line and a `main` changing its first: a pull request topic →
 * main that merge-tree merges cleanly, by content. Returns the clone's path.
 */
export async function divergeFarApart(url: string, tmp: string): Promise<string> {
  const dir = path.join(tmp, "clone");
  await gitOk(["clone", "--quiet", url, dir], tmp);
  await gitOk(["checkout", "--quiet", "-b", "topic"], dir);
  await commitFile(dir, "f.txt", FAR_APART_LINES.replace("f\n", "F\n"), "topic: last line");
  await gitOk(["push", "--quiet", "origin", "topic"], dir);
  await gitOk(["checkout", "--quiet", "main"], dir);
  await commitFile(dir, "f.txt", FAR_APART_LINES.replace("a\n", "A\n"), "main: first line");
  await gitOk(["push", "--quiet", "origin", "main"], dir);
  return dir;
}

export async function status(p: Promise<unknown>): Promise<number> {
  try {
    const r = (await p) as { status: number };
    return r.status;
  } catch (e) {
    const s = (e as { status?: number }).status;
    if (typeof s !== "number") throw e;
    return s;
  }
}

export async function errorOf(p: Promise<unknown>): Promise<{ status: number; message: string; data: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    const err = e as { status?: number; message: string; response?: { data?: Record<string, unknown> } };
    return { status: err.status ?? 0, message: err.message, data: err.response?.data ?? {} };
  }
  throw new Error("expected the request to fail, but it succeeded");
}

/** A bare sandbox repository (its `main` unborn at first) and a work tree that pushes to it. */
export interface BareWithWork {
  gitDir: string;
  /** git on the bare repository; its trimmed output. */
  bare(...args: string[]): Promise<string>;
  /** An empty commit in the work tree, pushed to the bare repository's main; its sha. */
  commit(message: string): Promise<string>;
  remove(): Promise<void>;
}

/** For the tests that hold the sandbox's written answers to git's own across repository states. */
export async function bareWithWork(prefix: string): Promise<BareWithWork> {
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
  const gitDir = path.join(tmp, "repo.git");
  await initBare(gitDir, "main");
  const work = path.join(tmp, "work");
  await gitOk(["init", "--quiet", "--initial-branch=main", work], tmp);
  return {
    gitDir,
    bare: (...args) => gitOk(["--git-dir", gitDir, ...args], tmp),
    async commit(message) {
      await gitOk(["commit", "--quiet", "--allow-empty", "-m", message], work);
      await gitOk(["push", "--quiet", gitDir, "HEAD:refs/heads/main"], work);
      return gitOk(["rev-parse", "HEAD"], work);
    },
    remove: () => fsp.rm(tmp, { recursive: true, force: true }),
  };
}

/**
 * Runs git with `input` on stdin: its exit code, stdout as bytes and stderr. A git that exits
 * without reading all its input (`cat-file`, or `receive-pack` once it has answered) closes the
 * pipe: its exit code and output are what a test judges, not the EPIPE of the write.
 */
export function gitBytes(
  args: string[],
  cwd: string,
  input: Buffer | string = "",
  env: NodeJS.ProcessEnv = gitEnv(),
): Promise<{ code: number; out: Buffer; err: string }> {
  return new Promise((resolve) => {
    const child = execFile("git", args, { cwd, env, encoding: "buffer", maxBuffer: 64 * 1024 * 1024 }, (e, out, err) =>
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out: out as Buffer, err: (err as Buffer).toString("utf8") }),
    );
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(input);
  });
}
