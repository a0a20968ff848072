/**
 * Whether a neighbour's merge touched this lane's work: the files the base changed since the lane's
 * branch parted from it, against the files the lane's own commits change. A Landing re-rebases (and
 * runs CI again) only when they meet (ADR 0181).
 */
import type { Lane } from "../../ports/workspace";
import type { RepoContext } from "./repo-context";
import { baseTip } from "./worktrees";

async function changedFiles(ctx: RepoContext, cwd: string, from: string, to: string): Promise<string[]> {
  const out = await ctx.git.text(["diff", "--name-only", "-z", "--no-renames", from, to, "--"], { cwd });
  return out.split("\0").filter((p) => p !== "");
}

/** After fetchBase: true when the base gained commits since the lane's branch left it that change a file the lane changes. */
export async function baseTouches(ctx: RepoContext, lane: Lane, base: string): Promise<boolean> {
  const { ref: onto, sha: ontoSha } = await baseTip(ctx, base);
  const head = `refs/heads/${lane.branch}`;
  const parted = await ctx.git.text(["merge-base", onto, head], { cwd: ctx.root });
  if (parted === ontoSha) return false;
  const theirs = new Set(await changedFiles(ctx, ctx.root, parted, onto));
  if (theirs.size === 0) return false;
  return (await changedFiles(ctx, ctx.root, parted, head)).some((p) => theirs.has(p));
}
