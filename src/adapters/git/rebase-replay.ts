/**
 * A Lane's rebase without `git rebase` where the answer is certain (ADR 0483). Up to date: the
 * base's tip is the Lane's commit or one of its parents, read from loose objects (no process). One
 * commit on a base that moved: `git merge-tree --write-tree` merges it onto the new base (the
 * merge base is its parent, as a cherry-pick's is), the commit is written here with its author,
 * message and git's own bytes (commit-text.ts), and `git reset --keep` moves the branch, index and
 * files to it: two processes where `merge-base`, `rebase` and its `notes copy` were three, and
 * none of the sequencer's files. Anything else answers null, and `git rebase` does it as before:
 * a conflict (so its stopped rebase is what the conflict Stage meets), more than one commit or a
 * merge, an object that is not loose, a commit git would drop or write otherwise (empty before or
 * after, another header, a message it would change), a base commit that may hold the same change
 * (the same paths: git compares patch ids and drops it), a HEAD that is not the Lane's branch.
 */
import { commitBytes, identLine } from "./commit-text";
import { refFileValue } from "./fetch-http";
import { DEFAULT_GIT_IDENTITY } from "./git-runner";
import { laneHeadRefFromFiles } from "./lane-head";
import { writeCommitBytes } from "./loose-objects";
import type { Commit } from "./loose-read";
import { chain, changedPaths, readCommit } from "./loose-read";
import type { RepoContext } from "./repo-context";
import type { Lane } from "../../ports/workspace";

/** How far down the Lane's own history the base's tip is looked for (a Lane's few commits). */
const LANE_WALK = 8;
/** How many base commits since the Lane's start are read (the neighbours' merges of one round). */
const BASE_WALK = 64;

/** Whether no base commit since the Lane's start changes the same paths as its commit (a patch id git would drop it for needs them). */
async function noSameChange(ctx: RepoContext, mine: string[], upstream: Commit[], start: Commit): Promise<boolean> {
  for (let i = 0; i < upstream.length; i++) {
    const parentTree = i + 1 < upstream.length ? upstream[i + 1]!.tree : start.tree;
    const theirs = await changedPaths(ctx, parentTree, upstream[i]!.tree);
    if (!theirs || (theirs.length === mine.length && theirs.every((p, j) => p === mine[j]))) return false;
  }
  return true;
}

/**
 * Rebases the Lane on `baseRef` (already fetched) when that is certain to give what `git rebase`
 * gives; null: git's turn. "clean" leaves the branch, index and files at the new commit.
 */
export async function replayRebase(ctx: RepoContext, lane: Lane, baseRef: string, now = new Date()): Promise<"up-to-date" | "clean" | null> {
  const [head, base] = await Promise.all([laneHeadRefFromFiles(ctx, lane.path), refFileValue(ctx, baseRef)]);
  if (!head || head.ref !== `refs/heads/${lane.branch}` || !base) return null;
  const own = await chain(ctx, head.tip, LANE_WALK);
  if (head.tip === base || own.some((c) => c.parents.includes(base))) return "up-to-date";
  const mine = own[0];
  if (!mine || mine.parents.length !== 1 || mine.otherHeaders) return null;
  const start = mine.parents[0]!;
  // The base must have moved on from the Lane's start, in commits this clone has loose.
  const moved = await chain(ctx, base, BASE_WALK);
  const at = moved.findIndex((c) => c.parents[0] === start);
  if (at < 0 || moved.some((c) => c.id === mine.id)) return null;
  const upstream = moved.slice(0, at + 1);
  // A merge among them brings commits of its other side, each one git would compare too.
  if (upstream.some((c) => c.parents.length !== 1)) return null;
  const startCommit = own[1] ?? (await readCommit(ctx, start));
  if (!startCommit) return null;
  const changes = await changedPaths(ctx, startCommit.tree, mine.tree);
  if (!changes || changes.length === 0 || !(await noSameChange(ctx, changes, upstream, startCommit))) return null;
  const merged = await ctx.git.raw(["merge-tree", "--write-tree", "--no-messages", base, mine.id], { cwd: ctx.root });
  const tree = merged.stdout.toString("utf8").split("\n")[0]!;
  // A conflict (exit 1) is git rebase's to stop on; a tree equal to the base's is a commit git drops.
  if (merged.code !== 0 || !/^[0-9a-f]{40}$/.test(tree) || tree === moved[0]!.tree) return null;
  const committer = identLine(ctx.git.options.identity ?? DEFAULT_GIT_IDENTITY, Math.floor(now.getTime() / 1000));
  const body = committer && commitBytes({ tree, parents: [base], author: mine.author, committer, message: mine.message });
  if (!body) return null;
  const commit = await writeCommitBytes(ctx, body);
  // The branch is this Run's alone while it holds the ticket; reset --keep refuses (and changes
  // nothing) when a file it must change has local changes, and git rebase then says why.
  const reset = await ctx.git.raw(["reset", "--quiet", "--keep", commit], { cwd: lane.path });
  return reset.code === 0 ? "clean" : null;
}
