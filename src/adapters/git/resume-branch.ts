/**
 * Resuming a Ticket's branch: the remote's copy carries the work between Hosts, so it is compared
 * with this Host's copy before anything runs. Outcomes (docs/workspace.md):
 *   made            no copy here: one is built from the remote
 *   kept            the copy here contains the remote's, or was never pushed, or holds every remote
 *                   commit rebased and more (a Run killed between its rebase and its push)
 *   fast-forwarded  the copy here was only behind, or the remote's is a rebase of it (old tip saved)
 *   parted          each side holds work the other lacks: refused, never settled silently
 *   gone            neither the remote nor this Host has the branch
 */
import { access } from "node:fs/promises";
import { resolve } from "node:path";
import { Refusal } from "../../core/errors";
import type { Lane, ResumeOutcome } from "../../ports/workspace";
import type { RepoContext } from "./repo-context";
import { fetchRef, isAncestor, listWorktrees, resolveRef, resolveRefs, worktreeCommand } from "./repo";
import { setAsideStaleLocks } from "./stale-locks";
import { addWorktreeFor, assertBranchName, branchInWay, lanePath, worktreeOf } from "./worktrees";

export interface ResumeResult {
  lane: Lane | null;
  outcome: Exclude<ResumeOutcome, "parted">;
  detail: string;
}

/** True when a rebase (merge backend or apply backend) is stopped in this worktree. */
export async function rebaseInProgress(ctx: RepoContext, cwd: string): Promise<boolean> {
  for (const name of ["rebase-merge", "rebase-apply"]) {
    const path = await ctx.git.text(["rev-parse", "--path-format=absolute", "--git-path", name], { cwd });
    if (
      await access(path).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** Aborts a rebase a killed Run left behind, back to the branch tip. True when there was one. */
export async function abortRebase(ctx: RepoContext, cwd: string): Promise<boolean> {
  if (!(await rebaseInProgress(ctx, cwd))) return false;
  await ctx.git.text(["rebase", "--abort"], { cwd });
  return true;
}

/**
 * Parted copies: one recommended way out, the one that destroys nothing (ADR 0173). This Host's copy
 * stays on a branch of its own; the Lane's branch takes the remote's copy (`reset --keep` refuses to
 * overwrite uncommitted changes). No force-push: the remote's copy may be another Host's work.
 */
export function partedRefusal(ctx: RepoContext, ticket: number, branch: string, local: string, remote: string, worktree: string | null): Refusal {
  const track = `${ctx.remote}/${branch}`;
  const keep = `git -C ${ctx.root} branch ${branch}-here-${local.slice(0, 7)} ${local}`;
  const take = worktree ? `git -C ${worktree} reset --keep ${track}` : `git -C ${ctx.root} branch -f ${branch} ${track}`;
  const fix = `${keep} && ${take}`;
  return new Refusal(
    "branches-parted",
    `Ticket #${ticket}'s branch \`${branch}\` has parted: this Host's copy${worktree ? ` (worktree ${worktree})` : ""} is at ${local.slice(0, 12)}, ` +
      `the remote's is at ${remote.slice(0, 12)}, and each holds commits the other lacks. Ticket Runner does not pick a side. ` +
      `The safe way to make them one keeps both: this Host's copy stays on a branch of its own and the Lane's branch takes the remote's: \`${fix}\`. ` +
      `Carry over what this Host's copy adds, if it is needed, then relabel the Ticket ready-for-agent.`,
    { next: fix, ...(worktree ? { path: worktree } : {}) },
  );
}

/**
 * Moves a worktree's branch forward to `to`. Uncommitted changes that would be overwritten are
 * first saved as a commit under refs/ticket-runner/saved/, so nothing is lost without a trace.
 */
async function fastForwardWorktree(ctx: RepoContext, cwd: string, ticket: number, to: string): Promise<string> {
  const keep = await ctx.git.raw(["reset", "--quiet", "--keep", to], { cwd });
  if (keep.code === 0) return "";
  const saved = await ctx.git.text(["stash", "create", `ticket-runner: uncommitted work before resuming #${ticket}`], { cwd });
  let note = "";
  if (saved) {
    const ref = `refs/ticket-runner/saved/ticket-${ticket}-${Date.now()}`;
    await ctx.git.text(["update-ref", ref, saved], { cwd });
    note = ` Uncommitted changes were saved as ${ref} (\`git stash apply ${ref}\` brings them back).`;
  }
  await ctx.git.text(["reset", "--quiet", "--hard", to], { cwd });
  return note;
}

/**
 * True when every commit `from` has that `into` lacks has its rebased copy in `into`: the same
 * author, author date and subject (what a rebase keeps). Merges make it false: a rebase drops them.
 * This is how a copy rebased by a Run killed before its push (or pushed by another Host after its
 * rebase) is told from two copies that really parted.
 */
async function heldAsRebase(ctx: RepoContext, from: string, into: string, base: string | null): Promise<boolean> {
  // Commits already on the base are kept by the base; only the ticket's own are compared.
  const only = (tip: string, not: string) => [tip, "--not", not, ...(base ? [base] : [])];
  if ((await ctx.git.text(["rev-list", "--merges", ...only(from, into)], { cwd: ctx.root })) !== "") return false;
  const keys = async (args: string[]) =>
    (await ctx.git.text(["log", "--no-merges", "--date=raw", "--format=%an <%ae> %ad %s", ...args], { cwd: ctx.root })).split("\n").filter(Boolean);
  const theirs = await keys(only(from, into));
  const ours = new Set(await keys(only(into, from)));
  return theirs.length > 0 && theirs.every((k) => ours.has(k));
}

/** Keeps a tip that is about to stop being a branch's, so the commits stay reachable (and named). */
async function saveTip(ctx: RepoContext, ticket: number, sha: string): Promise<string> {
  const ref = `refs/ticket-runner/saved/ticket-${ticket}-tip-${Date.now()}`;
  await ctx.git.text(["update-ref", ref, sha], { cwd: ctx.root });
  return ref;
}

export async function resumeLane(ctx: RepoContext, ticket: number, branch: string, base?: string): Promise<ResumeResult> {
  await assertBranchName(ctx, branch);
  const path = lanePath(ctx, ticket);
  await worktreeCommand(ctx, ["prune"]);

  // A killed Run may have left the lane mid-rebase (detached HEAD): abort back to the branch tip first.
  let aborted = false;
  let lockNote = "";
  const before = await listWorktrees(ctx);
  const laneExists = before.some((w) => resolve(w.path) === resolve(path));
  const moved = await setAsideStaleLocks(ctx, branch, laneExists ? path : null);
  if (moved.length > 0) lockNote = ` Stale git locks left by a killed git were moved aside: ${moved.join(", ")}.`;
  if (laneExists) aborted = await abortRebase(ctx, path);
  const abortNote = `${lockNote}${aborted ? " A rebase left in progress was aborted first." : ""}`;

  const track = `refs/remotes/${ctx.remote}/${branch}`;
  const remoteState = await fetchRef(ctx, branch, track);
  // Both tips in one read, and the listing before reused unless an abort moved a HEAD in it (ADR 0477).
  const [local, fetched] = await resolveRefs(ctx, [`refs/heads/${branch}`, ...(remoteState === "fetched" ? [track] : [])]);
  const remote = fetched ?? null;
  const entries = aborted ? await listWorktrees(ctx) : before;
  const checkedOut = worktreeOf(entries, branch);
  if (checkedOut && resolve(checkedOut.path) !== resolve(path)) throw branchInWay(ctx, ticket, branch, checkedOut.path);
  const lane: Lane = { ticket, branch, path };
  const ensureWorktree = async (): Promise<Lane> => (checkedOut ? lane : addWorktreeFor(ctx, ticket, branch));

  if (!local && !remote) {
    return { lane: null, outcome: "gone", detail: `Branch \`${branch}\` is neither on the remote nor on this Host.${abortNote}` };
  }
  if (!local && remote) {
    await ctx.git.text(["branch", "--quiet", "--no-track", branch, remote], { cwd: ctx.root });
    const made = await addWorktreeFor(ctx, ticket, branch);
    return { lane: made, outcome: "made", detail: `Made ${path} from the remote's \`${branch}\` at ${remote.slice(0, 12)}.${abortNote}` };
  }
  if (local && !remote) {
    return {
      lane: await ensureWorktree(),
      outcome: "kept",
      detail: `Kept this Host's \`${branch}\` at ${local.slice(0, 12)}; the remote has no copy (never pushed, or deleted).${abortNote}`,
    };
  }
  const l = local!;
  const r = remote!;
  if (l === r || (await isAncestor(ctx, r, l))) {
    const ahead = l === r ? "the same as the remote's" : "ahead of the remote's";
    return { lane: await ensureWorktree(), outcome: "kept", detail: `Kept this Host's \`${branch}\` at ${l.slice(0, 12)}, ${ahead}.${abortNote}` };
  }
  if (await isAncestor(ctx, l, r)) {
    let note = "";
    if (checkedOut) note = await fastForwardWorktree(ctx, path, ticket, r);
    else await ctx.git.text(["update-ref", `refs/heads/${branch}`, r, l], { cwd: ctx.root });
    const ff = await ensureWorktree();
    return {
      lane: ff,
      outcome: "fast-forwarded",
      detail: `Fast-forwarded \`${branch}\` from ${l.slice(0, 12)} to the remote's ${r.slice(0, 12)}.${note}${abortNote}`,
    };
  }
  // Parted by a rebase only: one copy holds every commit of the other, rebased. The remote's wins a
  // tie (it is the published one); the copy left behind is saved under refs/ticket-runner/saved/.
  const baseRef = base ? await resolveRef(ctx, `refs/remotes/${ctx.remote}/${base}`) : null;
  if (await heldAsRebase(ctx, l, r, baseRef)) {
    const saved = await saveTip(ctx, ticket, l);
    let note = "";
    if (checkedOut) note = await fastForwardWorktree(ctx, path, ticket, r);
    else await ctx.git.text(["update-ref", `refs/heads/${branch}`, r, l], { cwd: ctx.root });
    const moved = await ensureWorktree();
    return {
      lane: moved,
      outcome: "fast-forwarded",
      detail: `Moved \`${branch}\` from ${l.slice(0, 12)} to the remote's ${r.slice(0, 12)}, a rebase of the same commits; the old tip is kept as ${saved}.${note}${abortNote}`,
    };
  }
  if (await heldAsRebase(ctx, r, l, baseRef)) {
    // Typically this Host's own rebase, killed before its push: the next push (with a lease) sends it.
    return {
      lane: await ensureWorktree(),
      outcome: "kept",
      detail: `Kept this Host's \`${branch}\` at ${l.slice(0, 12)}, a rebase of the remote's ${r.slice(0, 12)} (every remote commit is here, rebased).${abortNote}`,
    };
  }
  throw partedRefusal(ctx, ticket, branch, l, r, checkedOut ? path : null);
}
