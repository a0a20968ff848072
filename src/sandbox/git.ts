/**
 * Every git subprocess the sandbox runs goes through here: argv only (never a shell), LC_ALL=C
 * so output parses the same everywhere, and a fixed identity so no global git config is needed.
 */
import { runGitProcess } from "../adapters/git/git-process";
import { markConnected } from "./objects-connected";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface GitResult {
  /** null: git gave no exit code (a signal ended it, or the spawner was lost with the call): no answer. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  gitDir?: string;
  cwd?: string;
  input?: string | Buffer;
  env?: Record<string, string>;
}

const SANDBOX_IDENTITY = { name: "Sandbox", email: "sandbox@ticket-runner.invalid" };

export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("GIT_")) delete env[key];
  return {
    ...env,
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: SANDBOX_IDENTITY.name,
    GIT_AUTHOR_EMAIL: SANDBOX_IDENTITY.email,
    GIT_COMMITTER_NAME: SANDBOX_IDENTITY.name,
    GIT_COMMITTER_EMAIL: SANDBOX_IDENTITY.email,
    ...extra,
  };
}

/**
 * No git of the sandbox stays silent this long (it would be stuck): stopped then, and answered as
 * a failure, where before it would have held its request for ever.
 */
const GIT_IDLE_MS = 10 * 60_000;

/**
 * Runs git through the spawner (ADR 0391): a small process forks faster than this big one, and
 * this one's event loop does not stop for the fork.
 */
export async function git(args: string[], opts: GitOptions = {}): Promise<GitResult> {
  const full = opts.gitDir ? ["--git-dir", opts.gitDir, ...args] : args;
  const r = await runGitProcess(full, { cwd: opts.cwd ?? os.tmpdir(), env: gitEnv(opts.env), input: opts.input ?? "", idleMs: GIT_IDLE_MS });
  // No exit code is no answer, never exit 1: merge-tree's 1 means "conflicts", and a git the
  // sandbox's own stop killed (SIGTERM to its group) must not read as one.
  return { code: r.code, stdout: r.stdout.toString("utf8"), stderr: r.stderr };
}

/** `-c` for a git process through its environment (GIT_CONFIG_COUNT), which reaches the processes it starts too. */
export function configEnv(entries: readonly (readonly [string, string])[]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * What every receive-pack of the sandbox runs with, besides the rules' hook (ADR 0471). Given in
 * its environment, so it holds for every repository, those made before it included:
 * - `receive.autogc=false`: no `git gc --auto` in the push's path (GitHub maintains repositories
 *   in the background; the sandbox runs it every PUSHES_PER_GC pushes, after the push: pushes.ts).
 * - `core.alternateRefsCommand=true`: the connectivity check (`rev-list --objects ... --not
 *   --exclude-hidden=receive --all --alternate-refs`) lists the refs of the quarantine's alternate,
 *   which is the repository itself, with a `git for-each-ref` of every ref, hidden ones included.
 *   With none, the walk stops at the visible refs' history instead: the same objects are checked
 *   present, a push builds on history only a hidden ref reaches is walked a little further, and
 *   whether it is taken does not change.
 */
export const RECEIVE_PACK_CONFIG: readonly (readonly [string, string])[] = [
  ["receive.autogc", "false"],
  ["core.alternateRefsCommand", "true"],
];

let execPath: Promise<string> | undefined;

/**
 * git's exec path (`git --exec-path`), where its programs that are not built in live
 * (git-http-backend), asked once per process.
 */
export function gitExecPath(): Promise<string> {
  execPath ??= gitOk(["--exec-path"]).then((out) => out.trim());
  return execPath;
}

export async function gitOk(args: string[], opts: GitOptions = {}): Promise<string> {
  const r = await git(args, opts);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed (${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

export async function initBare(gitDir: string, defaultBranch: string): Promise<void> {
  await fsp.mkdir(gitDir, { recursive: true });
  await gitOk(["init", "--bare", "--quiet", `--initial-branch=${defaultBranch}`, gitDir]);
  // Pushing over HTTP is allowed by http-backend when REMOTE_USER is set; say so anyway.
  await gitOk(["config", "http.receivepack", "true"], { gitDir });
  await gitOk(["config", "uploadpack.allowAnySHA1InWant", "true"], { gitDir });
  // As on GitHub, a push to refs/pull/* is refused ("deny updating a hidden ref").
  await gitOk(["config", "receive.hideRefs", "refs/pull"], { gitDir });
  // Empty, so every object in it is connected: pushes may be checked without a walk (ADR 0482).
  await markConnected(gitDir);
}

/** Commits `files` (or the tree of `fromDir`) as the first commit of `branch` in a bare repo. */
export async function commitInitial(
  gitDir: string,
  branch: string,
  content: { files?: Record<string, string>; fromDir?: string },
  message: string,
): Promise<string> {
  const indexDir = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-index-"));
  const env = { GIT_INDEX_FILE: path.join(indexDir, "index") };
  try {
    if (content.fromDir) {
      await gitOk(["--work-tree", content.fromDir, "add", "-A", "."], { gitDir, env, cwd: content.fromDir });
    }
    for (const [file, text] of Object.entries(content.files ?? {})) {
      const sha = (await gitOk(["hash-object", "-w", "--stdin"], { gitDir, input: text })).trim();
      await gitOk(["update-index", "--add", "--cacheinfo", `100644,${sha},${file}`], { gitDir, env });
    }
    const tree = (await gitOk(["write-tree"], { gitDir, env })).trim();
    const commit = (await gitOk(["commit-tree", tree, "-m", message], { gitDir })).trim();
    await gitOk(["update-ref", `refs/heads/${branch}`, commit], { gitDir });
    return commit;
  } finally {
    await fsp.rm(indexDir, { recursive: true, force: true });
  }
}

/**
 * `git rev-parse --verify --quiet <name>`: the object it names, or null. One process a question:
 * the sandbox asks through `app.commits` (commit-lookup.ts), which comes here only when its batch
 * cannot answer.
 */
export async function revParseName(gitDir: string, name: string): Promise<string | null> {
  const r = await git(["rev-parse", "--verify", "--quiet", name], { gitDir });
  return r.code === 0 ? r.stdout.trim() : null;
}

/** Every ref and its object, or only those named (`names`: whole ref names; none: an empty map). */
export async function listRefs(gitDir: string, names?: string[]): Promise<Map<string, string>> {
  if (names?.length === 0) return new Map();
  const out = await gitOk(["for-each-ref", "--format=%(refname) %(objectname)", ...(names ? ["--", ...names] : [])], { gitDir });
  const refs = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [name, sha] = line.split(" ");
    if (name && sha && (!names || names.includes(name))) refs.set(name, sha);
  }
  return refs;
}

/** Compare-and-swap: moves `ref` to `next` only if it still points at `expected` ("" = must not exist). */
export async function casRef(gitDir: string, ref: string, next: string, expected: string): Promise<boolean> {
  const old = expected === "" ? "0000000000000000000000000000000000000000" : expected;
  const r = await git(["update-ref", ref, next, old], { gitDir });
  return r.code === 0;
}

/**
 * GitHub keeps every pull request's head at `refs/pull/N/head`, also after its branch is deleted:
 * that is what "Restore branch" restores from, so deleting a merged branch loses no commit.
 */
export async function keepPullHead(gitDir: string, pull: number, sha: string): Promise<void> {
  await gitOk(["update-ref", `refs/pull/${pull}/head`, sha], { gitDir });
}

export async function deleteRef(gitDir: string, ref: string, expected?: string): Promise<boolean> {
  const r = await git(expected ? ["update-ref", "-d", ref, expected] : ["update-ref", "-d", ref], { gitDir });
  return r.code === 0;
}

export async function isAncestor(gitDir: string, ancestor: string, descendant: string): Promise<boolean> {
  const r = await git(["merge-base", "--is-ancestor", ancestor, descendant], { gitDir });
  return r.code === 0;
}

/**
 * `git merge-tree --write-tree`: the merged tree, or null when the two conflict (merge-tree's exit 1). Anything else throws, a git
 * that gave no exit code included: a mergeability computed from it would be cached as "conflicting"
 * for that head and base, and kept across a restart (docs/adr/0472).
 */
export async function mergeTree(gitDir: string, ours: string, theirs: string): Promise<string | null> {
  const r = await git(["merge-tree", "--write-tree", "--no-messages", ours, theirs], { gitDir });
  if (r.code === 0) return r.stdout.split("\n")[0]?.trim() ?? null;
  if (r.code === 1) return null;
  throw new Error(`git merge-tree failed (${r.code === null ? "no exit code" : r.code}): ${r.stderr.trim()}`);
}

export async function commitTree(gitDir: string, tree: string, parents: string[], message: string, env: Record<string, string> = {}): Promise<string> {
  const args = ["commit-tree", tree];
  for (const p of parents) args.push("-p", p);
  return (await gitOk([...args, "-F", "-"], { gitDir, input: message, env })).trim();
}

/** A valid branch/ref name per git check-ref-format, checked without a subprocess. */
export function isSafeRefName(name: string): boolean {
  if (!name || name.length > 255) return false;
  if (name.startsWith("/") || name.endsWith("/") || name.endsWith(".") || name.endsWith(".lock")) return false;
  if (name.includes("..") || name.includes("//") || name.includes("@{") || name === "@") return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split("/").every((part) => part.length > 0 && !part.startsWith("."));
}

/** Owner and repository names: GitHub allows letters, digits, '-', '_' and '.', never '.' or '..'. */
export function isSafeName(name: string): boolean {
  return /^[A-Za-z0-9_.-]{1,100}$/.test(name) && name !== "." && name !== ".." && !name.endsWith(".git");
}
