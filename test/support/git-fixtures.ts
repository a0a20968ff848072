/**
 * Real git repositories for tests: a bare "remote" with an initial commit on main, clones of it,
 * commits and pushes. Every git call gets an explicit identity and LC_ALL=C, so nothing depends on
 * the machine's global git config (CI runs as root on a clean machine).
 *
 *   const fx = await makeRemote({ files: { "README.md": "hi\n" } });
 *   const a = await fx.clone("a");
 *   await commitFiles(a, { "x.txt": "1\n" }, "add x");
 *   await git(a, ["push", "origin", "main"]);
 *   ...
 *   await fx.cleanup();
 */
import { execFile } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const TEST_IDENTITY = { name: "Ticket Runner Test", email: "test@ticket-runner.invalid" } as const;

/** The env every fixture git call runs with; pass `extra` to add or override variables. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LC_ALL: "C",
    GIT_AUTHOR_NAME: TEST_IDENTITY.name,
    GIT_AUTHOR_EMAIL: TEST_IDENTITY.email,
    GIT_COMMITTER_NAME: TEST_IDENTITY.name,
    GIT_COMMITTER_EMAIL: TEST_IDENTITY.email,
    // The machine's own config (signing, hooks paths, default branch) must not leak into tests.
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    ...extra,
  };
}

export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`git ${args.join(" ")} exited ${code}: ${stderr.trim() || stdout.trim()}`);
  }
}

/** Runs git in `cwd` with the fixture env; resolves with stdout (trimmed), throws GitCommandError. */
export function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env: gitEnv(extraEnv), maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const code = typeof err.code === "number" ? err.code : null;
        reject(new GitCommandError(args, code, String(stdout), String(stderr)));
        return;
      }
      resolve(String(stdout).trim());
    });
  });
}

/** A fresh directory under the OS temp dir. */
export function makeTempDir(prefix = "tr-test-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Writes files (creating parent directories), stages them and commits; returns the new HEAD sha. */
export async function commitFiles(repo: string, files: Record<string, string>, message: string): Promise<string> {
  for (const [rel, content] of Object.entries(files)) {
    const full = join(repo, rel);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  await git(repo, ["add", "--", ...Object.keys(files)]);
  await git(repo, ["commit", "--no-verify", "--no-gpg-sign", "-q", "-m", message]);
  return git(repo, ["rev-parse", "HEAD"]);
}

export interface CloneOptions {
  /** `git clone --single-branch`: only the branch named (default main) is fetched, now and later. */
  singleBranch?: boolean;
  branch?: string;
}

export interface RemoteFixture {
  /** Temp root holding the bare remote and every clone; removed by cleanup(). */
  root: string;
  /** Path of the bare repository, usable as a remote URL. */
  remote: string;
  /** Clones the remote into `<root>/<name>`; returns its path. */
  clone(name: string, opts?: CloneOptions): Promise<string>;
  /** Commits `files` on `branch` (default main) through a scratch clone and pushes; returns the sha. */
  pushCommit(files: Record<string, string>, message: string, branch?: string): Promise<string>;
  cleanup(): Promise<void>;
}

export interface MakeRemoteOptions {
  files?: Record<string, string>;
  defaultBranch?: string;
}

/** A bare remote whose default branch has one initial commit with `files` (default a README). */
export async function makeRemote(opts: MakeRemoteOptions = {}): Promise<RemoteFixture> {
  const root = await makeTempDir("tr-git-");
  const branch = opts.defaultBranch ?? "main";
  const remote = join(root, "remote.git");
  await git(root, ["init", "-q", "--bare", `--initial-branch=${branch}`, remote]);

  const seed = join(root, ".seed");
  await git(root, ["init", "-q", `--initial-branch=${branch}`, seed]);
  await commitFiles(seed, opts.files ?? { "README.md": "# fixture\n" }, "initial commit");
  await git(seed, ["remote", "add", "origin", remote]);
  await git(seed, ["push", "-q", "origin", branch]);

  let scratchCount = 0;
  const fixture: RemoteFixture = {
    root,
    remote,
    async clone(name, cloneOpts = {}) {
      const dest = join(root, name);
      const args = ["clone", "-q"];
      if (cloneOpts.singleBranch) args.push("--single-branch");
      args.push("--branch", cloneOpts.branch ?? branch, remote, dest);
      await git(root, args);
      return dest;
    },
    async pushCommit(files, message, onto = branch) {
      scratchCount += 1;
      const dest = join(root, `.scratch-${scratchCount}`);
      await git(root, ["clone", "-q", remote, dest]);
      const exists = await git(dest, ["ls-remote", "--heads", "origin", onto]);
      if (exists) await git(dest, ["checkout", "-q", onto]);
      else await git(dest, ["checkout", "-q", "-b", onto]);
      const sha = await commitFiles(dest, files, message);
      await git(dest, ["push", "-q", "origin", `HEAD:refs/heads/${onto}`]);
      await rm(dest, { recursive: true, force: true });
      return sha;
    },
    async cleanup() {
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  return fixture;
}
