/** What a Run does inside a Lane: read it, push it, rebase it, tidy it, and clean it up after a merge. */
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Failure } from "../../core/errors";
import type { Lane, PushResult } from "../../ports/workspace";
import { deleteRefsFromFiles, removeLaneFromFiles } from "./cleanup-from-files";
import { refFileValue } from "./fetch-http";
import { laneHeadFromFiles, laneRegistered } from "./lane-head";
import { chain, historyAsWritten } from "./loose-read";
import { asGitPorcelain, baseCandidates, laneAdvertisement, pushLaneOverHttp } from "./lane-push-http";
import { readPushRefusal } from "./push-refusal";
import type { HttpMove } from "./record-push-http";
import type { GitOutput } from "./git-runner";
import type { RefMove } from "./record-refs";
import type { RepoContext } from "./repo-context";
import { inWorktreeTurn, isAncestor, listWorktrees, lsRemoteBranch, resolveRefs, worktreeCommand } from "./repo";
import { replayRebase } from "./rebase-replay";
import { rebaseInProgress } from "./resume-branch";
import { ticketOfBranch } from "./slug";
import { setTrackingRefFromFiles } from "./tracking-ref-write";
import { baseStart } from "./worktrees";

export async function headSha(ctx: RepoContext, lane: Lane): Promise<string> {
  // Read from the worktree's files when they are the plain shape (ADR 0477); git answers the rest.
  return (await laneHeadFromFiles(ctx, lane.path)) ?? ctx.git.text(["rev-parse", "HEAD"], { cwd: lane.path });
}

/** How far down a Lane's history its commits are counted from files (a Lane holds a few). */
const AHEAD_WALK = 32;

/**
 * `rev-list --count <baseRef>..HEAD` read from the loose commits (ADR 0488): the Lane's HEAD down
 * its single parents to the base's tip. The history between being one line, none of those commits
 * can also be the base's ancestor, so their number is git's. Null: not certain, git counts.
 */
async function aheadFromFiles(ctx: RepoContext, lane: Lane, baseRef: string): Promise<number | null> {
  const [head, base, plain] = await Promise.all([laneHeadFromFiles(ctx, lane.path), refFileValue(ctx, baseRef), historyAsWritten(ctx)]);
  if (!head || !base || !plain) return null;
  if (head === base) return 0;
  const own = await chain(ctx, head, AHEAD_WALK);
  for (let i = 0; i < own.length; i++) {
    if (own[i]!.id === base) return i;
    if (own[i]!.parents.length === 1 && own[i]!.parents[0] === base) return i + 1;
  }
  return null;
}

export async function commitsAhead(ctx: RepoContext, lane: Lane, base: string): Promise<number> {
  const counted = await aheadFromFiles(ctx, lane, `refs/remotes/${ctx.remote}/${base}`);
  if (counted !== null) return counted;
  // The fetched remote base is the usual start: counted straight away, baseStart only when it is not there.
  const fetched = await ctx.git.raw(["rev-list", "--count", `refs/remotes/${ctx.remote}/${base}..HEAD`, "--"], { cwd: lane.path });
  if (fetched.code === 0) return Number(fetched.stdout.toString("utf8").trim());
  const start = await baseStart(ctx, base);
  return Number(await ctx.git.text(["rev-list", "--count", `${start}..HEAD`], { cwd: lane.path }));
}

/** No modified, staged or untracked (non-ignored) files. */
export async function isClean(ctx: RepoContext, lane: Lane): Promise<boolean> {
  const out = await ctx.git.text(["status", "--porcelain=v1", "-z"], { cwd: lane.path });
  return out === "";
}

/** Discards uncommitted changes and untracked files (ignored ones, like node_modules, stay). Commits are untouched. */
export async function resetWorktree(ctx: RepoContext, lane: Lane): Promise<void> {
  await ctx.git.text(["reset", "--quiet", "--hard", "HEAD"], { cwd: lane.path });
  await ctx.git.text(["clean", "-q", "-f", "-d"], { cwd: lane.path });
}

/**
 * Pushes the lane's HEAD with an explicit lease: the remote branch must still be where this Host
 * last saw it (or absent, if it never saw it), so another Host's newer work is never overwritten.
 */
export async function push(ctx: RepoContext, lane: Lane, along: RefMove | null = null): Promise<PushResult> {
  // The last guard before the remote: a Lane's work goes to its ticket's own branch, never the base.
  if (ticketOfBranch(lane.branch) !== lane.ticket)
    return { ok: false, detail: `Refused to push ${JSON.stringify(lane.branch)}: it is not ticket ${lane.ticket}'s own agent/${lane.ticket}-… branch.` };
  const track = `refs/remotes/${ctx.remote}/${lane.branch}`;
  // Over HTTP from this process (ADR 0478): the advertisement first, so the one read of the clone
  // also says which of the remote's tips the clone has (the pack's bases).
  const http = await laneAdvertisement(ctx);
  const ref = `refs/heads/${lane.branch}`;
  const candidates = http ? baseCandidates(http.adv, along ? [along] : []) : [];
  const [tracked, head, ...present] = await resolveRefs(ctx, [track, "HEAD", ...candidates], lane.path);
  if (!head) throw new Failure("git", `The Lane at ${lane.path} has no commit at HEAD to push.`);
  const expected = tracked ?? "";
  if (head === expected) return { ok: true, detail: `\`${lane.branch}\` is already on the remote at ${head.slice(0, 12)}.` };
  if (http) {
    const moves: HttpMove[] = [{ ref, commit: head, expected: tracked ?? null }, ...(along ? [along] : [])];
    const bases = candidates.filter((_, i) => present[i] === candidates[i]);
    const out = await pushLaneOverHttp(ctx, http, moves, tracked ? [tracked, ...bases] : bases);
    if (out?.outcome === "pushed") return pushed(ctx, lane, track, head, along);
    // Refused with the record along: nothing moved; the branch alone, and its refusal read as ever.
    if (out && along) return push(ctx, lane);
    if (out) {
      const said = ctx.git.redact(asGitPorcelain(http.client.url, moves, out));
      const refused = readPushRefusal(said, lane.branch);
      return { ok: false, detail: `The remote refused \`${lane.branch}\` at ${head.slice(0, 12)}: ${said}`, ...(refused ? { refused } : {}) };
    }
  }
  // A record along (ADR 0433): both refs or neither, each under its own lease.
  const res = await ctx.net.call([
    "push",
    "--quiet",
    "--porcelain",
    ...(along ? ["--atomic", `--force-with-lease=${along.ref}:${along.expected ?? ""}`] : []),
    `--force-with-lease=refs/heads/${lane.branch}:${expected}`,
    { url: true },
    `${head}:refs/heads/${lane.branch}`,
    ...(along ? [`${along.commit ?? ""}:${along.ref}`] : []),
  ]);
  // Refused with the record along: nothing moved; the branch alone, and its refusal read as ever.
  if (res.code !== 0 && along) return push(ctx, lane);
  if (res.code !== 0) {
    const said = ctx.git.redact(`${res.stdout.toString("utf8")}\n${res.stderr}`.trim());
    const refused = readPushRefusal(said, lane.branch);
    return { ok: false, detail: `The remote refused \`${lane.branch}\` at ${head.slice(0, 12)}: ${said}`, ...(refused ? { refused } : {}) };
  }
  return pushed(ctx, lane, track, head, along);
}

async function pushed(ctx: RepoContext, lane: Lane, track: string, head: string, along: RefMove | null): Promise<PushResult> {
  // Single-branch clones have no refspec for the lane's branch, so the tracking ref is kept by hand.
  if (!(await setTrackingRefFromFiles(ctx, track, head))) await ctx.git.text(["update-ref", track, head], { cwd: ctx.root });
  return { ok: true, detail: `Pushed \`${lane.branch}\` at ${head.slice(0, 12)}.`, ...(along ? { recorded: true } : {}) };
}

/** The remote's tip of a branch, asked of the remote itself; null when it has none. */
export function remoteBranchSha(ctx: RepoContext, branch: string): Promise<string | null> {
  return lsRemoteBranch(ctx, branch);
}

/**
 * Rebases the lane on the (already fetched) base. A conflict is left in place for a conflict
 * Stage; `rebaseInProgress` / `abortRebase` / `continueRebase` take it from there.
 */
export async function rebaseOnto(ctx: RepoContext, lane: Lane, base: string): Promise<"clean" | "conflict" | "up-to-date"> {
  // The fetched remote base is the usual start: asked straight away, baseStart only when it is not there.
  const remote = `refs/remotes/${ctx.remote}/${base}`;
  // Up to date, or one commit replayed cleanly, without git rebase (ADR 0483); the rest as before.
  const replayed = await replayRebase(ctx, lane, remote).catch(() => null);
  if (replayed) return replayed;
  const asked = await ctx.git.raw(["merge-base", "--is-ancestor", remote, `refs/heads/${lane.branch}`], { cwd: ctx.root });
  if (asked.code === 0) return "up-to-date";
  const start = asked.code === 1 ? remote : await baseStart(ctx, base);
  if (asked.code !== 1 && (await isAncestor(ctx, start, `refs/heads/${lane.branch}`))) return "up-to-date";
  const args = ["rebase", "--no-autosquash", "--no-verify", start];
  const res = await ctx.git.raw(args, { cwd: lane.path, env: { GIT_EDITOR: "true", GIT_SEQUENCE_EDITOR: "true" } });
  if (res.code === 0) return "clean";
  if (await rebaseInProgress(ctx, lane.path)) return "conflict";
  throw ctx.git.failure(args, res);
}

/** Paths git still marks as unmerged in the lane. */
export async function conflictedFiles(ctx: RepoContext, lane: Lane): Promise<string[]> {
  const out = await ctx.git.text(["diff", "--name-only", "-z", "--diff-filter=U"], { cwd: lane.path });
  return out.split("\0").filter((p) => p !== "");
}

const MARKER = /^(<{7}|>{7})( |$)/m;
const CONTINUE = ["-c", "core.commentChar=auto", "rebase", "--continue"];

/**
 * After a conflict Stage: stages the resolution and continues the rebase. A file that still holds
 * conflict markers is not taken as resolved.
 */
export async function continueRebase(ctx: RepoContext, lane: Lane): Promise<"clean" | "conflict"> {
  for (let step = 0; step < 1000; step++) {
    if (!(await rebaseInProgress(ctx, lane.path))) return "clean";
    for (const file of await conflictedFiles(ctx, lane)) {
      const full = join(lane.path, file);
      const text = await readFile(full, "utf8").catch(() => "");
      if (MARKER.test(text)) return "conflict";
    }
    await ctx.git.text(["add", "-A"], { cwd: lane.path });
    // commentChar=auto: with the default `#`, a message such as "#4 Fix..." would be stripped as a
    // comment, the commit would look empty, and the ticket's work would be dropped.
    const res = await ctx.git.raw(CONTINUE, { cwd: lane.path, env: { GIT_EDITOR: "true" } });
    if (res.code !== 0 && (await conflictedFiles(ctx, lane)).length > 0) return "conflict";
    if (res.code !== 0 && !(await rebaseInProgress(ctx, lane.path))) throw ctx.git.failure(CONTINUE, res);
    if (res.code === 0) continue;
    // Skipping is safe only when the resolution staged nothing: the commit's content is already in
    // the new base. Anything else stops here rather than lose a commit.
    const staged = await ctx.git.raw(["diff", "--cached", "--quiet"], { cwd: lane.path });
    if (staged.code !== 0) throw ctx.git.failure(CONTINUE, res);
    await ctx.git.raw(["rebase", "--skip"], { cwd: lane.path, env: { GIT_EDITOR: "true" } });
  }
  return "conflict";
}

export interface CleanupReport {
  worktree: "removed" | "absent";
  localBranch: "deleted" | "kept" | "absent";
  remoteBranch: "deleted" | "gone" | "kept" | "skipped";
  detail: string;
}

/**
 * After a merge: the worktree, the local branch (only when its commits are safe: in the base, on
 * the remote, or the merged head), and the remote branch unless it is gone or moved on.
 */
export async function cleanupLane(
  ctx: RepoContext,
  lane: Lane,
  opts: { deleteRemote: boolean; base?: string; mergedHead?: string; deletedAlready?: boolean },
): Promise<CleanupReport> {
  const notes: string[] = [];
  // The Lane's own record names it back: no `worktree list` to find it, and its removal leaves nothing to prune (ADR 0477).
  const certain = await laneRegistered(ctx, lane.path);
  const registered = certain || (await listWorktrees(ctx)).some((w) => resolve(w.path) === resolve(lane.path));
  let worktree: CleanupReport["worktree"] = "absent";
  if (registered) {
    // From the files when its record is certain (ADR 0494), in the worktree commands' turn as git's would be.
    const done = certain && (await inWorktreeTurn(ctx, () => removeLaneFromFiles(ctx, lane.path)));
    const removed = done ? null : await worktreeCommand(ctx, ["remove", "--force", lane.path]);
    if (removed && removed.code !== 0) throw ctx.git.failure(["worktree", "remove", "--force", lane.path], removed);
    worktree = "removed";
  } else if (
    await stat(lane.path).then(
      () => true,
      () => false,
    )
  ) {
    notes.push(`${lane.path} is not a worktree git knows; left in place.`);
  }
  if (!certain) await worktreeCommand(ctx, ["prune"]);

  const track = `refs/remotes/${ctx.remote}/${lane.branch}`;
  // The usual end (ADR 0477): the branch at the merged head and its remote copy already gone (or
  // kept by request): both refs in one leased transaction. Anything else fails it whole, and is read as before.
  if (opts.mergedHead && /^[0-9a-f]{40,64}$/.test(opts.mergedHead) && !/\s/.test(lane.branch) && (opts.deletedAlready || !opts.deleteRemote)) {
    const done: CleanupReport = { worktree, localBranch: "deleted", remoteBranch: opts.deleteRemote ? "deleted" : "skipped", detail: notes.join(" ") };
    // The refs' files first (ADR 0494); git's transaction where they are not certain.
    const drops = [{ ref: `refs/heads/${lane.branch}`, old: opts.mergedHead }, ...(opts.deleteRemote ? [{ ref: track, old: null }] : [])];
    if (await deleteRefsFromFiles(ctx, drops).catch(() => false)) return done;
    const drop = `delete refs/heads/${lane.branch} ${opts.mergedHead}\n${opts.deleteRemote ? `delete ${track}\n` : ""}`;
    const dropped = await ctx.git.raw(["update-ref", "--stdin"], { cwd: ctx.root, input: drop });
    if (dropped.code === 0) return done;
  }
  // The branch, its tracking ref and the base (remote, else local) in one read.
  const bases = opts.base ? [`refs/remotes/${ctx.remote}/${opts.base}`, `refs/heads/${opts.base}`] : [];
  const [local, tracked, remoteBase, localBase] = await resolveRefs(ctx, [`refs/heads/${lane.branch}`, track, ...bases]);
  let localBranch: CleanupReport["localBranch"] = "absent";
  if (local) {
    const start = remoteBase ? bases[0]! : localBase ? bases[1]! : null;
    const safe = local === opts.mergedHead || local === tracked || (start !== null && (await isAncestor(ctx, local, start)));
    if (safe) {
      // Not `git branch -D`: it rewrites .git/config (a new file, even with no section to drop), and a
      // neighbour Lane's sandbox binding that file read-only at that moment fails to start (bwrap:
      // "Unable to remount destination"). The deletion is leased on the tip just checked.
      await ctx.git.text(["update-ref", "-d", `refs/heads/${lane.branch}`, local], { cwd: ctx.root });
      localBranch = "deleted";
    } else {
      localBranch = "kept";
      notes.push(`Kept the local \`${lane.branch}\` at ${local.slice(0, 12)}: it holds commits that are neither merged nor on the remote.`);
    }
  }

  let remoteBranch: CleanupReport["remoteBranch"] = "skipped";
  if (opts.deleteRemote) {
    const known = opts.mergedHead ?? local ?? tracked;
    // The usual case first (ADR 0430): the remote still at the tip this Host knows, deleted under a
    // lease on it in one push. Only a refused lease asks the remote why (gone, or moved on).
    // Already deleted in the State record's removal push (ADR 0431): nothing to ask.
    const deleted = opts.deletedAlready ? DELETED : known ? await deleteRemoteBranch(ctx, lane.branch, known) : null;
    const remote = deleted?.code === 0 ? known : await lsRemoteBranch(ctx, lane.branch);
    if (deleted?.code === 0) remoteBranch = "deleted";
    else if (!remote) remoteBranch = "gone";
    else if (remote !== known) {
      remoteBranch = "kept";
      notes.push(`Kept the remote \`${lane.branch}\`: it moved on to ${remote.slice(0, 12)} after the merge.`);
    } else {
      const res = deleted ?? (await deleteRemoteBranch(ctx, lane.branch, remote));
      remoteBranch = res.code === 0 ? "deleted" : "kept";
      if (res.code !== 0) notes.push(`Could not delete the remote \`${lane.branch}\`: ${ctx.git.redact(res.stderr.trim())}`);
    }
    if (remoteBranch !== "kept") await ctx.git.raw(["update-ref", "-d", track], { cwd: ctx.root });
  }
  return { worktree, localBranch, remoteBranch, detail: notes.join(" ") };
}

const DELETED: GitOutput = { code: 0, stdout: Buffer.alloc(0), stderr: "" };

/** Deletes the remote branch only while it is at `expected` (a lease): a refusal says "stale info" whether it moved on or is gone. */
function deleteRemoteBranch(ctx: RepoContext, branch: string, expected: string): Promise<GitOutput> {
  return ctx.net.call(["push", "--quiet", `--force-with-lease=refs/heads/${branch}:${expected}`, { url: true }, `:refs/heads/${branch}`]);
}
