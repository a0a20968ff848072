/** Small reads and fetches shared by the Workspace adapter's parts. */
import { setTrackingRefFromFiles } from "./tracking-ref-write";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Failure } from "../../core/errors";
import { adoptObjects } from "./adopt-fetched";
import type { Fetched } from "./fetch-http";
import { assertFetchable, connectivityWalk, fetchObjects, hasLooseObject, refFileExists, refFileValue, trackingTips, uploadPackRefs } from "./fetch-http";
import { overHttp } from "./over-http";
import type { SmartHttpClient } from "./smart-http-client";
import { UseGit } from "./smart-http-client";
import { cloneStore } from "./clone-store";
import { resolveRefsFromFiles } from "./refs-from-files";
import { worktreesFromFiles } from "./lane-head";
import type { GitOutput } from "./git-runner";
import { isMissingRemoteRef, isRefLockContention } from "./git-runner";
import { setAsideStaleRefLock } from "./stale-locks";
import { takeTurn } from "./turns";
import type { RepoContext } from "./repo-context";
import type { WorktreeEntry } from "./worktree-entry";

/** The sha a ref or revision names in `cwd`, or null when it names nothing. */
export async function resolveRef(ctx: RepoContext, ref: string, cwd = ctx.root): Promise<string | null> {
  const res = await ctx.git.raw(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], { cwd });
  if (res.code !== 0) return null;
  return res.stdout.toString("utf8").trim() || null;
}

/**
 * The commit each of `revs` names in `cwd` (null where it names none), in order, with one git
 * process: `cat-file --batch-check` resolves names as `rev-parse` does (packed refs, a worktree's
 * own HEAD), so several reads of one step cost one fork instead of one each (ADR 0400).
 */
export async function resolveRefs(ctx: RepoContext, revs: string[], cwd = ctx.root): Promise<(string | null)[]> {
  if (revs.length === 0) return [];
  // A name with a newline or a leading dash would split or steer the batch: such a name names nothing here.
  const safe = revs.map((r) => r !== "" && !/[\s]/.test(r) && !r.startsWith("-"));
  const asked = revs.filter((_, i) => safe[i]);
  if (asked.length === 0) return revs.map(() => null);
  // Read from the clone's files when every answer is certain there (ADR 0488): no process.
  const read = await resolveRefsFromFiles(ctx, asked, cwd);
  if (read) {
    let at = 0;
    return revs.map((_, i) => (safe[i] ? (read[at++] ?? null) : null));
  }
  const out = await ctx.git.text(["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    cwd,
    input: `${asked.map((r) => `${r}^{commit}`).join("\n")}\n`,
  });
  const lines = out.split("\n");
  let next = 0;
  return revs.map((_, i) => {
    if (!safe[i]) return null;
    const m = /^([0-9a-f]{40,64}) commit$/.exec(lines[next++] ?? "");
    return m ? m[1]! : null;
  });
}

/**
 * `git worktree add|prune|remove` in the clone, one at a time in this process: a prune that runs
 * while another Lane's add has made the worktree's admin directory but not yet its `locked` or
 * `gitdir` file removes it, and the add fails ("could not open .git/worktrees/<id>/gitdir").
 */
export function worktreeCommand(ctx: RepoContext, args: string[]): Promise<GitOutput> {
  return takeTurn(worktreeTurn(ctx), () => ctx.git.raw(["worktree", ...args], { cwd: ctx.root }));
}

/** The turn the clone's worktree commands take one at a time in this process. */
function worktreeTurn(ctx: RepoContext): string {
  return `${ctx.root}\0worktrees`;
}

/** Runs `work` in the worktree commands' turn: no `worktree add` of this process is half-way meanwhile. */
export function inWorktreeTurn<T>(ctx: RepoContext, work: () => Promise<T>): Promise<T> {
  return takeTurn(worktreeTurn(ctx), work);
}

export async function refExists(ctx: RepoContext, ref: string): Promise<boolean> {
  const res = await ctx.git.raw(["show-ref", "--verify", "--quiet", ref], { cwd: ctx.root });
  return res.code === 0;
}

export function isAncestor(ctx: RepoContext, ancestor: string, descendant: string): Promise<boolean> {
  return ctx.git.test(["merge-base", "--is-ancestor", ancestor, descendant], { cwd: ctx.root });
}

/** Fetches into one ref of one clone, in flight in this process: each waits for the one before it. */
const fetchTurns = new Map<string, Promise<unknown>>();

/**
 * Fetches one remote branch into `localRef` with a forced refspec, so a rewritten remote branch
 * (force-push, snapshot commit) always lands. "missing" when the remote has no such branch; the
 * stale local copy of the ref is then deleted so nobody reads a branch that is gone (no process
 * for that when the caller has just read that there is none: `localAbsent`). The network
 * fetch runs in the Run's private git directory; its objects are then moved into the clone and
 * the clone's ref set with one `update-ref` (ADR 0473).
 *
 * Two Lanes fetching the base at once must not fail each other (`cannot lock ref`): fetches of one
 * ref of one clone take turns in this process, and a lock held by another live git process (a
 * second Run, a person's fetch) is waited out by retrying on that reason only (ADR 0170).
 */
export function fetchRef(ctx: RepoContext, branch: string, localRef: string, opts: { localAbsent?: boolean } = {}): Promise<"fetched" | "missing"> {
  const key = `${ctx.root}\0${localRef}`;
  // The caller read `localRef` absent just now; a fetch of it in flight here may make it, so then it is deleted as before.
  const absent = opts.localAbsent === true && !fetchTurns.has(key);
  const before = fetchTurns.get(key) ?? Promise.resolve();
  const mine = before.then(
    () => fetchRefNow(ctx, branch, localRef, absent),
    () => fetchRefNow(ctx, branch, localRef, absent),
  );
  const settled = mine.catch(() => undefined);
  fetchTurns.set(key, settled);
  void settled.then(() => {
    if (fetchTurns.get(key) === settled) fetchTurns.delete(key);
  });
  return mine;
}

/** How many times an update waits out a ref lock another live git holds, and how long at most each time. */
const LOCK_RETRIES = 8;
const LOCK_WAIT_MS = 400;

/** Where the private git directory keeps what it fetched of a remote ref. */
function fetchedRef(remoteRef: string): string {
  return `refs/fetched/${remoteRef.replace(/^refs\//, "")}`;
}

/**
 * Fetches `remoteRefs` from the remote into the Run's private git directory (ADR 0150). The
 * result is git's, so callers read "no such ref" themselves; the clone has nothing yet
 * (adoptFetched brings the objects).
 */
export function fetchPrivately(ctx: RepoContext, remoteRefs: string[]): Promise<GitOutput> {
  return ctx.net.call(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", { url: true }, ...remoteRefs.map((r) => `+${r}:${fetchedRef(r)}`)]);
}

/**
 * Moves the objects fetchPrivately brought into the clone's object store (ADR 0473): no process.
 * After it, every object the private directory's refs name is in the clone.
 */
export async function adoptFetched(ctx: RepoContext): Promise<void> {
  const [dir, store] = await Promise.all([ctx.net.dir(), cloneStore(ctx.git, ctx.root)]);
  await adoptObjects(join(dir, "objects"), store.dir);
}

/**
 * Whether the clone's shared ref `localRef` is a loose ref at `sha` already, read from its file:
 * then there is nothing to update. Anything else (packed, another value, not a shared ref) says no.
 */
async function looseRefIs(ctx: RepoContext, localRef: string, sha: string): Promise<boolean> {
  if (!localRef.startsWith("refs/remotes/") || localRef.split("/").some((p) => p === "" || p === "." || p === "..")) return false;
  const { commonDir } = await cloneStore(ctx.git, ctx.root);
  const content = await readFile(join(commonDir, localRef), "utf8").catch(() => null);
  return content?.trim() === sha;
}

async function fetchRefNow(ctx: RepoContext, branch: string, localRef: string, localAbsent: boolean): Promise<"fetched" | "missing"> {
  const spoken = await overHttp(ctx, "fetch", (client) => fetchRefOverHttp(ctx, client, branch, localRef, localAbsent));
  if (spoken) return spoken;
  const remoteRef = `refs/heads/${branch}`;
  const net = await fetchPrivately(ctx, [remoteRef]);
  if (net.code !== 0) {
    if (!isMissingRemoteRef(net.stderr)) throw ctx.git.failure(["fetch", ctx.remote, branch], net);
    if (!localAbsent) await ctx.git.raw(["update-ref", "-d", localRef], { cwd: ctx.root });
    return "missing";
  }
  // Read before the objects move: git writes a ref only once the objects it names are complete, so they are among those moved next.
  const sha = await ctx.net.fetchedSha(fetchedRef(remoteRef));
  if (!sha) throw new Failure("git", `The fetch of ${branch} from ${ctx.remote} succeeded but left no ${fetchedRef(remoteRef)} in the Run's git directory.`);
  await adoptFetched(ctx);
  if (await looseRefIs(ctx, localRef, sha)) return "fetched";
  await setLocalRef(ctx, localRef, sha);
  return "fetched";
}

/** How many times the remote's branch may move between its advertisement and the fetch before git is left to fetch it. */
const MOVED_TRIES = 3;

/**
 * fetchRefNow spoken from this process (ADR 0476): the advertisement gives the branch's sha; a
 * local copy already there costs no process, an object already here one `rev-list` (its history
 * proved whole), anything else one POST and the pack's one or two processes. UseGit (before
 * anything is written) leaves the fetch to git.
 */
async function fetchRefOverHttp(
  ctx: RepoContext,
  client: SmartHttpClient,
  branch: string,
  localRef: string,
  localAbsent: boolean,
): Promise<"fetched" | "missing"> {
  await assertFetchable(ctx);
  for (let round = 1; ; round++) {
    const adv = await uploadPackRefs(client);
    const sha = adv.refs.get(`refs/heads/${branch}`);
    if (!sha) {
      // No local copy in the clone's files: nothing to delete, no process.
      if (!localAbsent && (await refFileExists(ctx, localRef))) await ctx.git.raw(["update-ref", "-d", localRef], { cwd: ctx.root });
      return "missing";
    }
    // The local copy there already, loose or packed (a fresh clone packs its refs): nothing to do.
    const current = await refFileValue(ctx, localRef);
    if (current === sha) return "fetched";
    await assertFetchable(ctx, adv);
    const tips = await trackingTips(ctx);
    // Values of the clone's refs: good haves, and commits whose history is whole (a small pack is proved against them, ADR 0501).
    const refValues = [...(current ? [current] : []), ...tips];
    // Another tracking ref names it: set only once its objects were whole, so it needs no pack and no proof.
    // A loose commit otherwise (the Run's own, or fetched before) needs no pack, only proof that its history is whole.
    const fetched = tips.includes(sha)
      ? { release: async () => undefined }
      : (await hasLooseObject(ctx, sha))
        ? await provedWhole(ctx, client, sha)
        : await fetchObjects(ctx, client, { wants: [sha], haves: refValues, caps: adv.caps, whole: refValues });
    if (fetched === "not-our-ref") {
      if (round >= MOVED_TRIES) throw new UseGit(`${branch} kept moving on the remote`);
      continue;
    }
    try {
      await setLocalRef(ctx, localRef, sha);
    } finally {
      await fetched.release();
    }
    return "fetched";
  }
}

/** A want the clone has: its history checked whole as a fetch's would be, nothing fetched. */
async function provedWhole(ctx: RepoContext, client: SmartHttpClient, sha: string): Promise<Fetched | "not-our-ref"> {
  const res = await connectivityWalk(ctx, [sha]);
  if (res.code === 0) return { release: async () => undefined };
  // Left behind by a fetch whose pack was refused (ADR 0476): a pack brings the rest.
  const tips = await trackingTips(ctx);
  return fetchObjects(ctx, client, { wants: [sha], haves: tips, caps: null, whole: tips });
}

/** Sets the clone's `localRef` to `sha`, forced as the fetch's `+` refspec is, waiting out a lock another git holds. */
async function setLocalRef(ctx: RepoContext, localRef: string, sha: string): Promise<void> {
  // Written to the files where that is certain (ADR 0494); else git.
  if (await setTrackingRefFromFiles(ctx, localRef, sha)) return;
  // update-ref also refuses a sha whose object the clone lacks.
  const args = ["update-ref", localRef, sha];
  let res = await ctx.git.raw(args, { cwd: ctx.root });
  // The ref's lock, left by a git killed with its Run: moved aside, once.
  if (res.code !== 0 && (await setAsideStaleRefLock(ctx, localRef, res.stderr))) res = await ctx.git.raw(args, { cwd: ctx.root });
  // A live git holds the ref's lock (another process fetching it): wait for it, then update again.
  for (let attempt = 0; res.code !== 0 && attempt < LOCK_RETRIES && isRefLockContention(res.stderr); attempt++) {
    await new Promise((r) => setTimeout(r, 25 + Math.random() * Math.min(LOCK_WAIT_MS, 50 * 2 ** attempt)));
    res = await ctx.git.raw(args, { cwd: ctx.root });
  }
  if (res.code !== 0) throw ctx.git.failure(args, res);
}

/** The remote's sha for a branch without fetching it, or null when it has none. */
export async function lsRemoteBranch(ctx: RepoContext, branch: string): Promise<string | null> {
  // Over HTTP the advertisement says it: no `ls-remote` process (ADR 0476).
  const listed = await overHttp(ctx, "ls-remote", async (client) => ({ sha: (await uploadPackRefs(client)).refs.get(`refs/heads/${branch}`) ?? null }));
  if (listed) return listed.sha;
  const res = await ctx.net.call(["ls-remote", "--heads", { url: true }, `refs/heads/${branch}`]);
  if (res.code !== 0) throw ctx.git.failure(["ls-remote", "--heads", ctx.remote], res);
  const out = res.stdout.toString("utf8");
  const line = out.split("\n").find((l) => l.endsWith(`\trefs/heads/${branch}`));
  return line ? line.split("\t")[0]! : null;
}

export async function listWorktrees(ctx: RepoContext): Promise<WorktreeEntry[]> {
  // Read from the clone's files when every record is certain there (ADR 0488): no process.
  const read = await worktreesFromFiles(ctx);
  return read ?? listWorktreesByGit(ctx);
}

/** `git worktree list`'s own answer. */
export async function listWorktreesByGit(ctx: RepoContext): Promise<WorktreeEntry[]> {
  const out = await ctx.git.text(["worktree", "list", "--porcelain", "-z"], { cwd: ctx.root });
  const entries: WorktreeEntry[] = [];
  let cur: WorktreeEntry | null = null;
  for (const field of out.split("\0")) {
    if (field === "") {
      if (cur) entries.push(cur);
      cur = null;
      continue;
    }
    const [key, ...rest] = field.split(" ");
    const value = rest.join(" ");
    if (key === "worktree") cur = { path: value, head: null, branch: null, prunable: false };
    else if (!cur) continue;
    else if (key === "HEAD") cur.head = value;
    else if (key === "branch") cur.branch = value.replace(/^refs\/heads\//, "");
    else if (key === "prunable") cur.prunable = true;
  }
  if (cur) entries.push(cur);
  return entries;
}

/** The URL of the remote, with any credentials in it removed. */
export async function remoteUrl(ctx: RepoContext): Promise<string | null> {
  const res = await ctx.git.raw(["remote", "get-url", ctx.remote], { cwd: ctx.root });
  if (res.code !== 0) return null;
  return ctx.git.redact(res.stdout.toString("utf8").trim());
}
