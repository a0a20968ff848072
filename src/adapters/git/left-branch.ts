/**
 * An old local branch for a ticket (what `ticket-runner start` then `release` leave behind), read
 * without changing anything: what is on it, where it is checked out, whether its worktree holds
 * uncommitted work. One verdict decides whether a fresh Lane may reuse it (docs/adr/0121): only when
 * reusing could lose nothing and adopts nobody's work.
 */
import { resolve } from "node:path";
import type { WorktreeEntry } from "./worktree-entry";
import type { RepoContext } from "./repo-context";
import { resolveRef } from "./repo";

export interface LeftBranch {
  branch: string;
  tip: string;
  /** Where it is checked out, if anywhere. */
  worktree: string | null;
  /** Commits on it that the base does not have. */
  beyondBase: number;
  /** Of those, commits on no remote branch at all: deleting the branch would lose them. */
  unpushed: number;
  /** Its worktree has modified, staged or untracked (non-ignored) files. */
  dirty: boolean;
  /** The remote's copy as this clone last saw it (refs/remotes/<remote>/<branch>), or null. */
  remoteCopy: string | null;
}

async function count(ctx: RepoContext, args: string[]): Promise<number> {
  return Number(await ctx.git.text(["rev-list", "--count", ...args], { cwd: ctx.root })) || 0;
}

/** null when the branch does not exist here. `baseRef` is the base as fetched (baseStart). */
export async function inspectLeftBranch(ctx: RepoContext, branch: string, baseRef: string, entries: WorktreeEntry[]): Promise<LeftBranch | null> {
  const tip = await resolveRef(ctx, `refs/heads/${branch}`);
  if (!tip) return null;
  const worktree = entries.find((w) => w.branch === branch)?.path ?? null;
  let dirty = false;
  if (worktree) {
    // A worktree whose directory is gone has nothing uncommitted to lose.
    const status = await ctx.git.raw(["status", "--porcelain=v1", "-z"], { cwd: worktree }).catch(() => null);
    dirty = status !== null && status.code === 0 && status.stdout.length > 0;
  }
  return {
    branch,
    tip,
    worktree,
    beyondBase: await count(ctx, [tip, "--not", baseRef]),
    unpushed: await count(ctx, [tip, "--not", baseRef, "--remotes"]),
    dirty,
    remoteCopy: await resolveRef(ctx, `refs/remotes/${ctx.remote}/${branch}`),
  };
}

export type NotReusable = { in: "remote"; why: string } | { in: "local"; why: string };

/** Why a Lane at `lanePath` may not start on this branch, or null when it may (it is moved up to the base). */
export function whyNotReusable(left: LeftBranch, lanePath: string): NotReusable | null {
  if (left.worktree && resolve(left.worktree) !== resolve(lanePath)) return { in: "local", why: `it is checked out in the worktree ${left.worktree}` };
  if (left.beyondBase > 0) {
    const lost = left.unpushed > 0 ? `, ${left.unpushed} of them on no remote` : "";
    return { in: "local", why: `it holds ${left.beyondBase} commit(s) that are not on the base${lost}` };
  }
  if (left.dirty) return { in: "local", why: `its worktree ${left.worktree} has uncommitted or untracked changes` };
  if (left.remoteCopy) return { in: "remote", why: `the remote has a copy of it (at ${left.remoteCopy.slice(0, 12)})` };
  return null;
}
