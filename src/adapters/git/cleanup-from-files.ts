/**
 * A merged Lane's clean-up written to the clone's files as git writes them, without the two git
 * processes it took (ADR 0494): `git worktree remove --force` (builtin/worktree.c: the worktree's
 * folder, then its record under `<common>/worktrees/`, then that folder if empty) and the leased
 * `update-ref --stdin` that deletes the branch and its tracking ref (refs/files-backend.c: each
 * ref's `.lock` and `packed-refs.lock` taken exclusively, the values checked, the loose files and
 * their reflogs removed, empty parent folders below `refs/<kind>/` removed). Only where the files
 * say for certain what git would do; anything else answers "not done" with nothing changed, and
 * the caller runs git as before: a record that does not name the Lane back, a locked worktree, a
 * ref that is packed, symbolic, not loose, not at its lease, or locked by another writer.
 */
import { open, readFile, rm, rmdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RepoContext } from "./repo-context";
import { cloneStore } from "./clone-store";
import { laneRecordNamingBack, plainRef } from "./lane-head";

/**
 * `git worktree remove --force <lane>` from files: true when done, false when git must do it (its
 * record is not certain, it is locked, or removing its folder failed: git then says why).
 */
export async function removeLaneFromFiles(ctx: RepoContext, lanePath: string): Promise<boolean> {
  const record = await laneRecordNamingBack(ctx, lanePath);
  if (!record) return false;
  // One --force does not remove a locked worktree: git refuses, and says so.
  if (await exists(join(record.admin, "locked"))) return false;
  try {
    // Like git's remove_dir_recursively: links are removed, never followed.
    await rm(lanePath, { recursive: true });
  } catch {
    return false;
  }
  // The folder is gone: from here git too goes on whatever happens (a record left over reads as prunable).
  await rm(record.admin, { recursive: true, force: true });
  await rmdir(dirname(record.admin)).catch(() => undefined);
  return true;
}

export interface RefDrop {
  ref: string;
  /** The lease: the value the ref must hold; null: any plain value. */
  old: string | null;
}

export const LOOSE_SHA1 = /^([0-9a-f]{40})\n$/;

/**
 * `git update-ref --stdin` of `delete <ref> [<old>]` lines from files, all or nothing: true when
 * every ref was a loose ref at its lease, in no packed-refs, and is deleted with its reflog; false
 * with nothing changed otherwise, for git to do (or refuse) as before.
 */
export async function deleteRefsFromFiles(ctx: RepoContext, drops: readonly RefDrop[]): Promise<boolean> {
  const { commonDir, algorithm } = await cloneStore(ctx.git, ctx.root);
  if (algorithm !== "sha1" || drops.length === 0) return false;
  if (!drops.every((d) => /^refs\/(heads|remotes)\/./.test(d.ref) && plainRef(d.ref))) return false;
  if (new Set(drops.map((d) => d.ref)).size !== drops.length) return false;
  const locks: string[] = [];
  const deleted: { ref: string; log: boolean }[] = [];
  try {
    // git's own locks: another git writing these refs, or packing refs, waits for ours or fails, as with git.
    for (const lock of [...drops.map((d) => join(commonDir, `${d.ref}.lock`)), join(commonDir, "packed-refs.lock")]) {
      if (!(await takeLock(lock))) return false;
      locks.push(lock);
    }
    for (const d of drops) {
      const value = LOOSE_SHA1.exec((await readFile(join(commonDir, d.ref), "utf8").catch(() => "")) ?? "")?.[1];
      if (!value || (d.old !== null && value !== d.old)) return false;
    }
    // A packed copy would outlive the loose file: git rewrites packed-refs then, and so git does it.
    const packed = await readFile(join(commonDir, "packed-refs"), "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? "" : null));
    if (packed === null || drops.some((d) => packedNames(packed).has(d.ref))) return false;
    for (const d of drops) {
      await unlink(join(commonDir, d.ref));
      deleted.push({ ref: d.ref, log: await unlink(join(commonDir, "logs", d.ref)).then(ok, no) });
    }
    return true;
  } finally {
    for (const lock of locks) await rm(lock, { force: true });
    // After the locks are gone, as git does: the emptied folders below refs/<kind>/ (of a reflog only when there was one).
    for (const d of deleted) await removeEmptyParents(commonDir, d.ref, d.log);
  }
}

function packedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^[0-9a-f]{40,64} (refs\/\S+)$/.exec(line);
    if (m) names.add(m[1]!);
  }
  return names;
}

/** Creates `path` exclusively (git's lock); false when it is there (another writer) or cannot be made. */
export async function takeLock(path: string): Promise<boolean> {
  try {
    await (await open(path, "wx")).close();
    return true;
  } catch {
    return false;
  }
}

/** refs/files-backend.c try_remove_empty_parents: `refs/<kind>/` stays, each emptied folder below it goes, for refs and logs alike. */
async function removeEmptyParents(commonDir: string, ref: string, hadLog: boolean): Promise<void> {
  const parts = ref.split("/");
  let refs = true;
  let logs = hadLog;
  for (let n = parts.length - 1; n > 2 && (refs || logs); n--) {
    const dir = parts.slice(0, n).join("/");
    if (refs) refs = await rmdir(join(commonDir, dir)).then(ok, no);
    if (logs) logs = await rmdir(join(commonDir, "logs", dir)).then(ok, no);
  }
}

const ok = (): boolean => true;
const no = (): boolean => false;

function exists(path: string): Promise<boolean> {
  return readFile(path).then(ok, (e: NodeJS.ErrnoException) => e.code !== "ENOENT");
}
