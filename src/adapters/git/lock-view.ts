/**
 * Every Run lock file on the remote, read at once (ADR 0450): the shared branch `ticket-runner/lock`
 * (`lock.json` for lockScope "target", and the per-host files older versions kept there), and each
 * Host's own branch `ticket-runner/locks/<hostId>` (its `lock-<hostId>.json`). One `ls-remote`, a
 * fetch only of what this clone lacks, one `ls-tree` of the shared branch and one `cat-file`.
 */
import { lockFileSchema } from "../../core/schemas/lock-file";
import type { LockFile } from "../../core/schemas/lock-file";
import { contentSummary } from "./records";
import { LOCK_BRANCH } from "./lock-words";
import { fetchRecords, lsRemoteRefs, readPaths } from "./record-refs";
import type { RepoContext } from "./repo-context";
import type { TreeFiles } from "./snapshot";
import { listFiles } from "./snapshot";

/** Each Host's own lock branch lives under this prefix (lockScope "host"). */
export const HOST_LOCKS_PREFIX = "ticket-runner/locks/";
export const TARGET_LOCK_FILE = "lock.json";
export const HOST_LOCK_FILE = /^lock-[A-Za-z0-9._-]+\.json$/;

type Parsed = { ok: true; lock: LockFile } | { ok: false; reason: string };

export function parseLockFile(content: Buffer | string): Parsed {
  const text = typeof content === "string" ? content : content.toString("utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `not JSON (${(e as Error).message}); content ${contentSummary(text)}` };
  }
  const parsed = lockFileSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      reason: `not a lock file (${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}); content ${contentSummary(text)}`,
    };
  return { ok: true, lock: parsed.data };
}

/** A lock file's content where it was found, parsed into a LockEntry. */
export function lockEntry(branch: string, path: string, content: Buffer | string, sha: string | null = null): LockEntry {
  const parsed = parseLockFile(content);
  return { branch, path, lock: parsed.ok ? parsed.lock : null, unreadable: parsed.ok ? null : parsed.reason, sha };
}

/** A Host id as it appears in a branch and a file name. */
export function hostIdPart(hostId: string): string {
  return hostId.replace(/[^A-Za-z0-9._-]/g, "_");
}

export function hostLockFile(hostId: string): string {
  return `lock-${hostIdPart(hostId)}.json`;
}

export function hostLockBranch(hostId: string): string {
  return `${HOST_LOCKS_PREFIX}${hostIdPart(hostId)}`;
}

/** One lock file where it was found: parsed, or why it could not be. */
export interface LockEntry {
  branch: string;
  path: string;
  lock: LockFile | null;
  /** Why it cannot be read (null: it was read). */
  unreadable: string | null;
  /** Its blob's sha, where the view listed it (the shared branch's files); null elsewhere. */
  sha?: string | null;
}

export interface LockView {
  /** The shared branch's tip and files (null, empty: no such branch). */
  shared: { tip: string | null; files: TreeFiles };
  /** Each per-host lock branch's tip, by branch name. */
  hostTips: Map<string, string>;
  entries: LockEntry[];
  /** The refs of `alsoList` the same listing showed: the State records' listing rides along (ADR 0450). */
  alsoListed: Map<string, string>;
  /** True when `alsoListed`'s objects came in the same fetch as the lock files' (ADR 0495): the read that uses them fetches nothing. */
  alsoFetched: boolean;
}

export interface LockViewAsk {
  shared: boolean;
  alsoList?: string[];
  /**
   * Which per-host branches are fetched and read (default every one listed; every tip is still
   * listed in `hostTips`). A Host's own take needs only its own (ADR 0495): the others' files
   * name peers, read in the read after its push.
   */
  hostBranches?: (branch: string) => boolean;
}

const ROUNDS = 5;

/**
 * The objects of the lock refs, and in the same fetch those of `also` (the State records listed
 * beside them, which the sweep reads next: ADR 0495); "moved" when a lock ref moved meanwhile.
 * Where the fetch of both cannot be made whole (a State ref moved too, or it failed), the lock
 * refs are fetched alone, as before, and the State records are left to their own read.
 */
async function fetchLockObjects(ctx: RepoContext, refs: Map<string, string>, also: Map<string, string>): Promise<"ok" | "moved" | "ok-with-also"> {
  if (also.size > 0) {
    const both = await fetchRecords(ctx, new Map([...refs, ...also])).catch(() => "failed" as const);
    if (both === "ok") return "ok-with-also";
  }
  return fetchRecords(ctx, refs);
}

/**
 * `shared: false` lists only the per-host branches (a Target-wide Run's read after its push: one
 * `ls-remote` when there are none). `alsoList`: more patterns for the same `ls-remote`, their
 * objects fetched with the lock files'.
 */
export async function readLockView(ctx: RepoContext, opts: LockViewAsk = { shared: true }): Promise<LockView> {
  const lockPatterns = [...(opts.shared ? [`refs/heads/${LOCK_BRANCH}`] : []), `refs/heads/${HOST_LOCKS_PREFIX}*`];
  const isLock = (ref: string) => ref === `refs/heads/${LOCK_BRANCH}` || ref.startsWith(`refs/heads/${HOST_LOCKS_PREFIX}`);
  const hostBranch = (ref: string) => (ref.startsWith(`refs/heads/${HOST_LOCKS_PREFIX}`) ? ref.slice("refs/heads/".length) : null);
  const read = (ref: string) => {
    const branch = hostBranch(ref);
    return branch === null || !opts.hostBranches || opts.hostBranches(branch);
  };
  for (let round = 0; ; round++) {
    const listed = await lsRemoteRefs(ctx, [...lockPatterns, ...(opts.alsoList ?? [])]);
    const refs = new Map([...listed].filter(([ref]) => isLock(ref)));
    const alsoListed = new Map([...listed].filter(([ref]) => !isLock(ref)));
    const fetched = new Map([...refs].filter(([ref]) => read(ref)));
    // A ref that moved between the listing and the fetch: list again (another Host took or freed its lock).
    const got = await fetchLockObjects(ctx, fetched, alsoListed);
    if (got === "moved" && round < ROUNDS) continue;
    const sharedTip = refs.get(`refs/heads/${LOCK_BRANCH}`) ?? null;
    const files = await listFiles(ctx, sharedTip);
    const hostTips = new Map<string, string>();
    for (const [ref, sha] of refs) {
      const branch = hostBranch(ref);
      if (branch !== null) hostTips.set(branch, sha);
    }
    const wanted: { branch: string; path: string; spec: string; sha: string | null }[] = [];
    for (const [path, sha] of files) if (path === TARGET_LOCK_FILE || HOST_LOCK_FILE.test(path)) wanted.push({ branch: LOCK_BRANCH, path, spec: sha, sha });
    for (const [branch, tip] of hostTips) {
      if (!read(`refs/heads/${branch}`)) continue;
      const path = `lock-${branch.slice(HOST_LOCKS_PREFIX.length)}.json`;
      wanted.push({ branch, path, spec: `${tip}:${path}`, sha: null });
    }
    const blobs = await readPaths(
      ctx,
      wanted.map((w) => w.spec),
    );
    const entries = wanted.flatMap((w, i): LockEntry[] => {
      const blob = blobs[i];
      // A per-host branch without its file is no lock (a person may have emptied it).
      if (!blob) return [];
      return [lockEntry(w.branch, w.path, blob, w.sha)];
    });
    return { shared: { tip: sharedTip, files }, hostTips, entries, alsoListed, alsoFetched: got === "ok-with-also" };
  }
}
