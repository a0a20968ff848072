/**
 * Whether a neighbour's merge touched this lane's work: the files the base changed since the lane's
 * branch parted from it, against the files the lane's own commits change. A Landing re-rebases (and
 * runs CI again) only when they meet (ADR 0181).
 */
import type { Lane } from "../../ports/workspace";
import type { GitOutput } from "./git-runner";
import { refFileValue } from "./fetch-http";
import { chain, changedFiles, historyAsWritten } from "./loose-read";
import type { RepoContext } from "./repo-context";
import { baseTip } from "./worktrees";

/** How far down each side their merge base is looked for: a Lane's few commits, the base's merges of a round. */
const LANE_WALK = 8;
const BASE_WALK = 64;

/**
 * baseTouches read from the loose objects (ADR 0488): each side's commits down single parents
 * until one of the Lane's is on the base's line. Every commit above it on either side having one
 * parent, it is the only merge base, as `git diff A...B` would take; both sides' files are then
 * read as `diff --name-only` lists them. Null: not certain (a merge, a packed object, a submodule,
 * a history git reads otherwise), git diffs as before.
 */
async function touchesFromFiles(ctx: RepoContext, head: string, remote: string): Promise<boolean | null> {
  const [mineTip, theirTip, plain] = await Promise.all([refFileValue(ctx, head), refFileValue(ctx, remote), historyAsWritten(ctx)]);
  if (!mineTip || !theirTip || !plain) return null;
  const [mine, theirs] = await Promise.all([chain(ctx, mineTip, LANE_WALK), chain(ctx, theirTip, BASE_WALK)]);
  const onBase = new Set(theirs.map((c) => c.id));
  const start = mine.find((c) => onBase.has(c.id));
  if (!start) return null;
  const theirFiles = await changedFiles(ctx, start.tree, theirs[0]!.tree);
  if (!theirFiles) return null;
  if (theirFiles.length === 0) return false;
  const myFiles = await changedFiles(ctx, start.tree, mine[0]!.tree);
  if (!myFiles) return null;
  const touched = new Set(theirFiles);
  return myFiles.some((p) => touched.has(p));
}

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
  const read = await touchesFromFiles(ctx, head, remote);
  if (read !== null) return read;
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
