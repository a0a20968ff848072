/**
 * Lanes: the fresh base, and a worktree per Ticket at `.worktrees/ticket-<n>` on its own branch.
 * A branch that already exists here is never deleted, and reused only when reusing it can lose
 * nothing and adopts nobody's work (left-branch.ts, docs/adr/0121): otherwise it may be a person's.
 */
import { appendFile, mkdir, readdir, readFile, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { Refusal } from "../../core/errors";
import type { Lane } from "../../ports/workspace";
import { listWorktreesMended } from "./half-made-worktree";
import { inspectLeftBranch, whyNotReusable, type LeftBranch, type NotReusable } from "./left-branch";
import type { WorktreeEntry } from "./worktree-entry";
import type { RepoContext } from "./repo-context";
import { isBranchNameGitTakes } from "./branch-name";
import { WORKTREES_DIR } from "./lanes-dir";
import { commonDirOf } from "./loose-objects";
import { fetchRef, listWorktrees, refExists, resolveRef, resolveRefs, worktreeCommand } from "./repo";

/** Kept out of `git status` of the main checkout without touching the Target's tracked .gitignore. */
const EXCLUDED = ["/.worktrees/", "/.ticket-runner/"];

/**
 * Fetches the base with a forced refspec, so even a stale single-branch clone sees a base that
 * was force-pushed. A base that exists only locally is tolerated ("local-only").
 */
export async function fetchBase(ctx: RepoContext, base: string): Promise<"remote" | "local-only"> {
  const got = await fetchRef(ctx, base, `refs/remotes/${ctx.remote}/${base}`);
  if (got === "fetched") return "remote";
  if (await refExists(ctx, `refs/heads/${base}`)) return "local-only";
  throw new Refusal("not-a-target", `The base branch \`${base}\` is neither on the remote \`${ctx.remote}\` nor in ${ctx.root}.`, {
    next: `git -C ${ctx.root} push ${ctx.remote} ${base}   (or set "base" in ticket-runner.json to a branch that exists)`,
  });
}

/** Where a Lane starts: the fetched remote base, else the local one; its ref and its commit, read with one git process. */
export async function baseTip(ctx: RepoContext, base: string): Promise<{ ref: string; sha: string }> {
  const remote = `refs/remotes/${ctx.remote}/${base}`;
  const local = `refs/heads/${base}`;
  const [remoteSha, localSha] = await resolveRefs(ctx, [remote, local]);
  if (remoteSha) return { ref: remote, sha: remoteSha };
  if (localSha) return { ref: local, sha: localSha };
  throw new Refusal("not-a-target", `The base branch \`${base}\` is not here; fetch it first.`, { next: `git -C ${ctx.root} fetch ${ctx.remote} ${base}` });
}

/** baseTip's ref. */
export async function baseStart(ctx: RepoContext, base: string): Promise<string> {
  return (await baseTip(ctx, base)).ref;
}

export function lanePath(ctx: RepoContext, ticket: number): string {
  return join(ctx.root, WORKTREES_DIR, `ticket-${ticket}`);
}

/** Refuses a worktree path that would land outside the repository (a symlinked .worktrees, say). */
async function assertInsideRepo(ctx: RepoContext, path: string): Promise<void> {
  const root = await realpath(ctx.root);
  const lexical = relative(resolve(ctx.root), resolve(path));
  const escapes = (rel: string): boolean => rel === "" || rel.startsWith("..") || isAbsolute(rel);
  // Each existing step of the path is resolved, so a symlink anywhere on it is caught.
  const steps = [join(ctx.root, WORKTREES_DIR), path];
  for (const step of steps) {
    const real = await realpath(step).catch(() => null);
    if (real === null) continue;
    if (escapes(relative(root, real))) throw escapeRefusal(ctx, path, real, root);
  }
  if (escapes(lexical)) throw escapeRefusal(ctx, path, resolve(path), root);
}

function escapeRefusal(ctx: RepoContext, path: string, real: string, root: string): Refusal {
  return new Refusal(
    "bad-input",
    `The worktree path ${path} resolves to ${real}, outside the repository ${root}. Ticket Runner only makes worktrees inside the Target.`,
    {
      path,
      next: `Remove the link and let Ticket Runner make a plain directory: rm ${join(ctx.root, WORKTREES_DIR)}`,
    },
  );
}

/** Adds .worktrees/ and .ticket-runner/ to .git/info/exclude once, so the main checkout stays clean. */
async function ensureExcluded(ctx: RepoContext): Promise<void> {
  const common = await commonDirOf(ctx);
  const file = join(common, "info", "exclude");
  const current = await readFile(file, "utf8").catch(() => "");
  const lines = new Set(current.split("\n").map((l) => l.trim()));
  const missing = EXCLUDED.filter((e) => !lines.has(e));
  if (missing.length === 0) return;
  await mkdir(join(common, "info"), { recursive: true });
  const sep = current === "" || current.endsWith("\n") ? "" : "\n";
  await appendFile(file, `${sep}# ticket-runner: lanes and run logs\n${missing.join("\n")}\n`);
}

/** The worktree a branch is checked out in, if any. */
export function worktreeOf(entries: WorktreeEntry[], branch: string): WorktreeEntry | undefined {
  return entries.find((w) => w.branch === branch);
}

/** The commands that remove an abandoned branch (and its worktree, forced when it holds uncommitted work). */
function dropCommand(ctx: RepoContext, branch: string, worktree: string | null | undefined, dirty = false): string {
  const branchOnly = `git -C ${ctx.root} branch -D ${branch}`;
  if (!worktree || worktree === ctx.root) return branchOnly;
  return `git -C ${ctx.root} worktree remove ${dirty ? "--force " : ""}${worktree} && ${branchOnly}`;
}

/** The refusal for an existing local branch a Lane may not reuse: why, and how to finish it or remove it. */
export function branchInWay(
  ctx: RepoContext,
  ticket: number,
  branch: string,
  checkedOutIn: string | undefined,
  why?: { text: string; dirty?: boolean },
): Refusal {
  const reason = why?.text ?? (checkedOutIn ? `it is checked out in the worktree ${checkedOutIn}` : "it may be someone's work");
  const drop = dropCommand(ctx, branch, checkedOutIn, why?.dirty);
  return new Refusal(
    "branch-in-way",
    `A local branch \`${branch}\` already exists in ${ctx.root}, and Ticket #${ticket} cannot start on it: ${reason}. ` +
      `Ticket Runner starts on such a branch only when nothing on it could be lost (no commits beyond the base, no uncommitted changes, no copy on the remote), and never deletes it. ` +
      `If the work on it is abandoned, delete it with \`${drop}\`. Otherwise finish it by hand, then relabel the Ticket ready-for-agent.`,
    { path: checkedOutIn ?? ctx.root, next: drop },
  );
}

function remoteBranchInWay(ctx: RepoContext, ticket: number, branch: string, sha: string): Refusal {
  const drop = `git -C ${ctx.root} push ${ctx.remote} --delete ${branch}`;
  return new Refusal(
    "branch-in-way",
    `The remote already has a branch \`${branch}\` (at ${sha.slice(0, 12)}), so Ticket #${ticket} cannot start a fresh one over it. ` +
      `If that work is abandoned, delete it with \`${drop}\`; otherwise finish it by hand, then relabel the Ticket ready-for-agent.`,
    { next: drop },
  );
}

/**
 * An old local branch for the ticket (say `start`, then `release`, then a Run here): started on,
 * moved up to the fresh base, when whyNotReusable finds nothing that could be lost; else refused,
 * saying why. Call after fetchBase.
 */
async function reuseLeftBranch(ctx: RepoContext, ticket: number, branch: string, base: string, path: string, entries: WorktreeEntry[]): Promise<Lane> {
  // A fresh look at the remote's copy first (a stale tracking ref is dropped when the remote has none).
  await fetchRef(ctx, branch, `refs/remotes/${ctx.remote}/${branch}`);
  const { ref: start, sha: startSha } = await baseTip(ctx, base);
  const left = await inspectLeftBranch(ctx, branch, start, entries);
  const checkedOut = worktreeOf(entries, branch)?.path;
  if (!left) throw branchInWay(ctx, ticket, branch, checkedOut);
  const no = whyNotReusable(left, path);
  if (no?.in === "remote" && left.remoteCopy) throw remoteBranchInWay(ctx, ticket, branch, left.remoteCopy);
  if (no) throw branchInWay(ctx, ticket, branch, checkedOut, { text: no.why, dirty: left.dirty });
  if (left.worktree) {
    // Clean, and every commit on it is in the base: moving it up to the base loses nothing.
    await ctx.git.text(["reset", "--quiet", "--keep", startSha], { cwd: left.worktree });
    return { ticket, branch, path };
  }
  await ctx.git.text(["update-ref", `refs/heads/${branch}`, startSha, left.tip], { cwd: ctx.root });
  return addWorktreeFor(ctx, ticket, branch);
}

/** Makes the worktree directory ready: refuses a stale or foreign directory standing where the lane goes. */
async function clearPath(ctx: RepoContext, ticket: number, path: string, entries: WorktreeEntry[]): Promise<void> {
  const registered = entries.find((w) => resolve(w.path) === resolve(path));
  if (registered) {
    throw new Refusal(
      "branch-in-way",
      `A worktree already stands at ${path} (on ${registered.branch ?? "a detached HEAD"}), so Ticket #${ticket} cannot get a fresh one.`,
      {
        path,
        next: `git -C ${ctx.root} worktree remove ${path}`,
      },
    );
  }
  const left = await readdir(path).catch(() => null);
  if (left && left.length > 0) {
    throw new Refusal("branch-in-way", `The directory ${path} exists and is not a worktree git knows, so Ticket #${ticket} cannot use it.`, {
      path,
      next: `mv ${path} ${path}.old`,
    });
  }
}

export interface LeftBranchReport {
  left: LeftBranch;
  /** null: a Lane here would start on it (moved up to the base). */
  notReusable: NotReusable | null;
  /** The commands that delete the local branch and its worktree, for when its work is abandoned. */
  drop: string;
  /** The same for the remote's copy, when there is one. */
  dropRemote: string | null;
}

/** An old branch of a ticket as this clone sees it now (no fetch): what it holds, and whether a Lane here would reuse it. */
export async function leftBranchReport(ctx: RepoContext, ticket: number, branch: string, base: string): Promise<LeftBranchReport | null> {
  const start = await baseStart(ctx, base).catch(() => null);
  if (!start) return null;
  const left = await inspectLeftBranch(ctx, branch, start, await listWorktrees(ctx));
  if (!left) return null;
  return {
    left,
    notReusable: whyNotReusable(left, lanePath(ctx, ticket)),
    drop: dropCommand(ctx, branch, left.worktree, left.dirty),
    dropRemote: left.remoteCopy ? `git -C ${ctx.root} push ${ctx.remote} --delete ${branch}` : null,
  };
}

/** The clones whose stale worktree records this process pruned already. */
const prunedOnce = new Set<string>();

/**
 * The clone's worktrees (half-made lanes mended), stale records pruned first: on this process's
 * first Lane, and after that only when the listing shows a record git would prune (ADR 0477).
 */
async function listWorktreesPruned(ctx: RepoContext): Promise<WorktreeEntry[]> {
  if (prunedOnce.has(ctx.root)) {
    const entries = await listWorktreesMended(ctx);
    if (!entries.some((e) => e.prunable)) return entries;
  }
  await worktreeCommand(ctx, ["prune"]);
  prunedOnce.add(ctx.root);
  return listWorktreesMended(ctx);
}

/** A fresh Lane from the base. Call fetchBase first. */
export async function cutLane(ctx: RepoContext, ticket: number, branch: string, base: string): Promise<Lane> {
  await assertBranchName(ctx, branch);
  const path = lanePath(ctx, ticket);
  await assertInsideRepo(ctx, path);
  const entries = await listWorktreesPruned(ctx);
  // The branch, its tracking ref and the base (remote, else local), read with one process (ADR 0400).
  const track = `refs/remotes/${ctx.remote}/${branch}`;
  const [local, tracked, remoteBase, localBase] = await resolveRefs(ctx, [
    `refs/heads/${branch}`,
    track,
    `refs/remotes/${ctx.remote}/${base}`,
    `refs/heads/${base}`,
  ]);
  if (local) return reuseLeftBranch(ctx, ticket, branch, base, path, entries);
  await clearPath(ctx, ticket, path, entries);
  // A remote copy means an earlier attempt's work exists: a fresh lane could never push over it.
  if ((await fetchRef(ctx, branch, track, { localAbsent: tracked === null })) === "fetched")
    throw remoteBranchInWay(ctx, ticket, branch, (await resolveRef(ctx, track)) ?? "");
  const start = remoteBase ? `refs/remotes/${ctx.remote}/${base}` : localBase ? `refs/heads/${base}` : await baseStart(ctx, base);
  await ensureExcluded(ctx);
  await mkdir(join(ctx.root, WORKTREES_DIR), { recursive: true });
  const add = ["add", "--quiet", "--no-track", "-b", branch, path, start];
  const added = await worktreeCommand(ctx, add);
  if (added.code !== 0) throw ctx.git.failure(["worktree", ...add], added);
  return { ticket, branch, path };
}

/** Adds a worktree for a branch that exists locally (resume). */
export async function addWorktreeFor(ctx: RepoContext, ticket: number, branch: string): Promise<Lane> {
  const path = lanePath(ctx, ticket);
  await assertInsideRepo(ctx, path);
  await clearPath(ctx, ticket, path, await listWorktreesPruned(ctx));
  await ensureExcluded(ctx);
  await mkdir(join(ctx.root, WORKTREES_DIR), { recursive: true });
  const add = ["add", "--quiet", path, branch];
  const added = await worktreeCommand(ctx, add);
  if (added.code !== 0) throw ctx.git.failure(["worktree", ...add], added);
  return { ticket, branch, path };
}

export async function assertBranchName(ctx: RepoContext, branch: string): Promise<void> {
  // git's own rules, decided without a process (ADR 0477); a name `--branch` would expand is refused.
  if (!isBranchNameGitTakes(branch)) {
    throw new Refusal("bad-input", `\`${branch}\` is not a branch name git accepts.`, { next: "Use Workspace.branchFor(ticket, title) to make one." });
  }
}
