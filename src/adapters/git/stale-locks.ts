/**
 * Git locks a killed git left on a ticket's lane and branch (ADR 0126). A git process killed with
 * its Run (a whole process group SIGKILLed, as when a VM vanishes) leaves the lane's index.lock or
 * HEAD.lock, or the branch's ref lock, and every later git write there fails with "File exists".
 *
 * Resume runs holding the ticket's claim and the Run lock, so no other Run can be using the lane or
 * its branch. A lock is taken for stale when no process at all works inside the lane (procfs says
 * so: git chdirs into the tree it works on) or, where that cannot be told, when it is older than
 * STALE_LOCK_MS (a person's `git status` holds it for milliseconds). Locks are moved, never deleted,
 * so a person mid-`git commit` loses nothing; the main clone's own index is never touched.
 */
import { mkdir, readdir, readFile, readlink, rename, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import type { RepoContext } from "./repo-context";

export const STALE_LOCK_MS = 10_000;

export interface StaleLockOptions {
  now?: number;
  /** Root of procfs; null when this OS has none (then only the age rule applies). */
  procRoot?: string | null;
}

/**
 * The rule for "a thing git left in `scope` (a lock, a half-made worktree) cannot belong to a git
 * still at work": no process works inside `scope` (procfs), or, where that cannot be told, it is
 * older than STALE_LOCK_MS. procfs is read once per judge, however many things it is asked about.
 */
async function deadGitJudge(opts: StaleLockOptions = {}): Promise<(scope: string, mtimeMs: number) => boolean> {
  const cwds = await otherProcessPaths(opts.procRoot === undefined ? "/proc" : opts.procRoot);
  const now = opts.now ?? Date.now();
  return (scope, mtimeMs) => (cwds !== null && !cwds.some((cwd) => inside(scope, cwd))) || now - mtimeMs >= STALE_LOCK_MS;
}

export async function leftByDeadGit(scope: string, mtimeMs: number, opts: StaleLockOptions = {}): Promise<boolean> {
  return (await deadGitJudge(opts))(scope, mtimeMs);
}

/**
 * The working directories of every process but this one, or null when procfs cannot be read.
 * `withArgs`: each absolute path among their arguments too (`--git-dir /x`, `--git-dir=/x`): a
 * git pointed at a repository from elsewhere (the sandbox's own, ADR 0486) works there as well.
 */
export async function otherProcessPaths(procRoot: string | null, withArgs = false): Promise<string[] | null> {
  if (procRoot === null) return null;
  let pids: string[];
  try {
    pids = (await readdir(procRoot)).filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return null;
  }
  const paths = await Promise.all(
    pids.map(async (pid) => {
      const cwd = await readlink(join(procRoot, pid, "cwd")).catch(() => null);
      const args = withArgs ? (await readFile(join(procRoot, pid, "cmdline"), "utf8").catch(() => "")).split("\0") : [];
      const named = args.flatMap((a) => (a.includes("=") ? [a, a.slice(a.indexOf("=") + 1)] : [a]));
      return [cwd, ...named].filter((p): p is string => p !== null && p.startsWith("/"));
    }),
  );
  return paths.flat();
}

export function inside(dir: string, path: string): boolean {
  const d = resolve(dir);
  const p = resolve(path);
  return p === d || p.startsWith(d + sep);
}

/** A file name for `now` (no ':' or '.'), shared by everything set aside here. */
export function asideStamp(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, "-");
}

/** Moves a lock into `<git common dir>/ticket-runner/stale-locks/`: outside refs/, where a leftover file would read as a broken branch. */
async function moveLockAside(ctx: RepoContext, lock: string, now: number): Promise<string> {
  const keep = join(await ctx.git.text(["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: ctx.root }), "ticket-runner", "stale-locks");
  await mkdir(keep, { recursive: true });
  const aside = join(keep, `${asideStamp(now)}-${lock.replace(/[^A-Za-z0-9._-]+/g, "_").slice(-120)}`);
  await rename(lock, aside);
  return `${lock} → ${aside}`;
}

export async function setAsideStaleLocks(ctx: RepoContext, branch: string, lanePath: string | null, opts: StaleLockOptions = {}): Promise<string[]> {
  const now = opts.now ?? Date.now();
  const gitPath = (name: string, cwd: string) => ctx.git.text(["rev-parse", "--path-format=absolute", "--git-path", name], { cwd });
  // Each lock with the tree a git holding it would be working in.
  const locks: { path: string; scope: string }[] = [
    { path: await gitPath(`refs/heads/${branch}.lock`, ctx.root), scope: ctx.root },
    { path: await gitPath(`refs/remotes/${ctx.remote}/${branch}.lock`, ctx.root), scope: ctx.root },
  ];
  if (lanePath) locks.push({ path: await gitPath("index.lock", lanePath), scope: lanePath }, { path: await gitPath("HEAD.lock", lanePath), scope: lanePath });
  const present: { path: string; scope: string; mtimeMs: number }[] = [];
  for (const lock of locks) {
    const info = await stat(lock.path).catch(() => null);
    if (info) present.push({ ...lock, mtimeMs: info.mtimeMs });
  }
  if (present.length === 0) return [];
  const stale = await deadGitJudge({ ...opts, now });
  const moved: string[] = [];
  for (const lock of present) if (stale(lock.scope, lock.mtimeMs)) moved.push(await moveLockAside(ctx, lock.path, now));
  return moved;
}

/**
 * The lock of the one ref a fetch writes (`localRef`), left by a fetch killed with its Run: git
 * then says "Unable to create '<ref>.lock': File exists" on every later fetch of that branch.
 * Moved aside under the same rule as the lane's locks. Returns what was moved, or null.
 */
export async function setAsideStaleRefLock(ctx: RepoContext, localRef: string, stderr: string, opts: StaleLockOptions = {}): Promise<string | null> {
  if (!/Unable to create '[^']+\.lock': File exists/.test(stderr)) return null;
  const lock = await ctx.git.text(["rev-parse", "--path-format=absolute", "--git-path", `${localRef}.lock`], { cwd: ctx.root });
  if (!stderr.includes(`'${lock}'`)) return null;
  const info = await stat(lock).catch(() => null);
  if (!info || !(await leftByDeadGit(ctx.root, info.mtimeMs, opts))) return null;
  return moveLockAside(ctx, lock, opts.now ?? Date.now());
}
