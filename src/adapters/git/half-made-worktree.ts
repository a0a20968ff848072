/**
 * A lane whose `git worktree add` was killed half-way. Git writes the new worktree's HEAD as the
 * null object id first and fills it in once the checkout is done; a kill in between leaves
 * `.git/worktrees/<id>/HEAD` all zeros, and from then on every `git fetch` in the clone fails with
 * "bad object worktrees/<id>/HEAD": the Host can take no ticket at all.
 *
 * Only a lane of ours (under `<clone>/.worktrees/`) is mended, only when its HEAD is exactly the
 * null id, and only when no git can still be at work in it (`leftByDeadGit`). Both halves are
 * moved, never deleted: git's record to `.git/ticket-runner/half-made-worktrees/`, the directory to
 * `.worktrees/.half-made-<time>-<name>`. The branch `worktree add -b` made stays; the next Lane
 * starts on it (it holds nothing beyond the base).
 */
import { mkdir, readFile, rename, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { WorktreeEntry } from "./worktree-entry";
import { inWorktreeTurn, listWorktrees } from "./repo";
import type { RepoContext } from "./repo-context";
import { WORKTREES_DIR } from "./lanes-dir";
import { asideStamp, inside, leftByDeadGit } from "./stale-locks";

const BAD_WORKTREE_HEAD = /bad object worktrees\/([^/\s]+)\/HEAD/;

/** The worktree id git names in a "bad object worktrees/<id>/HEAD" error, if any. */
export function badWorktreeHead(stderr: string): string | null {
  return BAD_WORKTREE_HEAD.exec(stderr)?.[1] ?? null;
}

/** Moves a half-made lane aside. Returns what was moved, or null when it is not ours to mend. */
export async function setAsideHalfMadeWorktree(ctx: RepoContext, id: string, now = Date.now()): Promise<string | null> {
  if (id.includes("/") || id === "." || id === "..") return null;
  const common = await ctx.git.text(["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: ctx.root });
  const admin = join(common, "worktrees", id);
  const head = await readFile(join(admin, "HEAD"), "utf8").catch(() => null);
  if (head === null || !NULL_HEAD.test(head.trim())) return null;
  const gitdir = (await readFile(join(admin, "gitdir"), "utf8").catch(() => "")).trim();
  const lane = gitdir ? dirname(gitdir) : "";
  if (!lane || !inside(join(ctx.root, WORKTREES_DIR), lane) || lane === join(ctx.root, WORKTREES_DIR)) return null;
  const headInfo = await stat(join(admin, "HEAD"));
  if (!(await leftByDeadGit(lane, headInfo.mtimeMs, { now }))) return null;

  const stamp = asideStamp(now);
  const keep = join(common, "ticket-runner", "half-made-worktrees");
  await mkdir(keep, { recursive: true });
  const adminAside = join(keep, `${stamp}-${id}`);
  await rename(admin, adminAside);
  const laneAside = join(dirname(lane), `.half-made-${stamp}-${basename(lane)}`);
  const laneMoved = await rename(lane, laneAside).then(
    () => true,
    () => false,
  );
  return `${lane} (git's record kept as ${adminAside}${laneMoved ? `, the directory as ${laneAside}` : ""})`;
}

const NULL_HEAD = /^0{40}(0{24})?$/;

/**
 * Moves aside every half-made lane among `entries` (a `worktree list` of the clone) and says
 * whether any was: then the caller lists again. No process when none has the null id as HEAD.
 */
export async function mendHalfMadeLanes(ctx: RepoContext, entries: WorktreeEntry[], now = Date.now()): Promise<boolean> {
  let mended = false;
  for (const entry of entries) {
    if (!entry.head || !NULL_HEAD.test(entry.head)) continue;
    // Git names a worktree's record after its directory (a number appended only on a clash, never for our lanes).
    if (await setAsideHalfMadeWorktree(ctx, basename(entry.path), now)) mended = true;
  }
  return mended;
}

/**
 * The clone's worktrees, after any lane a killed `worktree add` left half-made is moved aside. In
 * the worktree commands' turn: another Lane's `worktree add` in flight has the null id as its HEAD
 * too, with no process working inside its directory yet, and must not be taken for a killed one.
 */
export function listWorktreesMended(ctx: RepoContext): Promise<WorktreeEntry[]> {
  return inWorktreeTurn(ctx, async () => {
    const entries = await listWorktrees(ctx);
    return (await mendHalfMadeLanes(ctx, entries)) ? listWorktrees(ctx) : entries;
  });
}
