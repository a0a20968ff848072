/**
 * Whether a neighbour's merge touched this lane's work: the files the base changed since the lane's
 * branch parted from it, against the files the lane's own commits change. A Landing re-rebases (and
 * runs CI again) only when they meet (ADR 0181).
 */
import type { Lane } from "../../ports/workspace";
import type { GitOutput } from "./git-runner";
import type { RepoContext } from "./repo-context";
import { baseTip } from "./worktrees";

/** The paths of a `diff --name-only -z`. */
function namesOf(out: Buffer): string[] {
  return out
    .toString("utf8")
    .split("\0")
    .filter((p) => p !== "");
}

/** The files changed from the merge base of `range`'s two sides to its right side (`git diff A...B`). */
function diffSince(ctx: RepoContext, range: string): Promise<GitOutput> {
  return ctx.git.raw(["diff", "--name-only", "-z", "--no-renames", range, "--"], { cwd: ctx.root });
}

/**
 * After fetchBase: true when the base gained commits since the lane's branch left it that change a
 * file the lane changes. Each side is a `diff A...B` from the merge base (ADR 0477): no separate
 * merge-base, and a base that has not moved changes nothing, so it answers no as before.
 */
export async function baseTouches(ctx: RepoContext, lane: Lane, base: string): Promise<boolean> {
  const head = `refs/heads/${lane.branch}`;
  // The fetched remote base is the usual one: asked straight away, baseTip only when that fails.
  const remote = `refs/remotes/${ctx.remote}/${base}`;
  const asked = await diffSince(ctx, `${head}...${remote}`);
  const onto = asked.code === 0 ? remote : (await baseTip(ctx, base)).ref;
  const theirsOut = asked.code === 0 ? asked : await diffSince(ctx, `${head}...${onto}`);
  if (theirsOut.code !== 0) throw ctx.git.failure(["diff", "--name-only", `${head}...${onto}`], theirsOut);
  const theirs = new Set(namesOf(theirsOut.stdout));
  if (theirs.size === 0) return false;
  const ours = await diffSince(ctx, `${onto}...${head}`);
  if (ours.code !== 0) throw ctx.git.failure(["diff", "--name-only", `${onto}...${head}`], ours);
  return namesOf(ours.stdout).some((p) => theirs.has(p));
}
