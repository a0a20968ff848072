/**
 * A push's ref updates written as git's files backend writes them (refs/files-backend.c), from
 * this process instead of a `git update-ref` (ADR 0482): each ref locked by creating
 * `<ref>.lock` exclusively, then checked against the value the push expects (its loose file, else
 * packed-refs: receive-pack's lease), and only when every one holds, each written into its lock
 * and renamed over the ref (or its loose file removed). git takes the same locks, so this and any
 * git writing the same ref (the sandbox's own update-refs, a receive-pack, pack-refs) exclude
 * each other. Whatever the files backend would do more than that is not done here: "unmodelled",
 * with every lock let go and nothing changed, and the caller lets receive-pack do the push: a ref
 * already locked (git would wait core.filesRefLockTimeout), not where the push expects it, a
 * symbolic ref, a name in conflict with another ref (D/F), a deletion of a packed ref (packed-refs
 * rewritten), a ref with a reflog.
 */
import { promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { removeFile } from "../adapters/remove-file";

export interface RefChange {
  ref: string;
  /** null: the ref must not exist. */
  old: string | null;
  /** null: the ref is deleted. */
  new: string | null;
}

export type TransactionOutcome = "done" | "unmodelled";

const LOOSE = /^([0-9a-f]{40})\n$/;

interface Lock {
  change: RefChange;
  file: string;
  lock: string;
  handle: FileHandle;
  /** Renamed over the ref: the lock file is the ref now, and a lock taken since is another's. */
  renamed: boolean;
}

/** packed-refs as name → object; null: a line not understood (peeled lines are skipped). */
async function packedRefs(gitDir: string): Promise<Map<string, string> | null> {
  let text: string;
  try {
    text = await fsp.readFile(path.join(gitDir, "packed-refs"), "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? new Map() : null;
  }
  const refs = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# pack-refs with:") || /^\^[0-9a-f]{40}$/.test(line)) continue;
    const m = /^([0-9a-f]{40}) (refs\/\S+)$/.exec(line);
    if (!m) return null;
    refs.set(m[2]!, m[1]!);
  }
  return refs;
}

/** The loose ref's object, null when there is no file; undefined: not a plain loose ref (a directory, a symbolic ref). */
async function looseValue(file: string): Promise<string | null | undefined> {
  try {
    return LOOSE.exec(await fsp.readFile(file, "utf8"))?.[1] ?? undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

/** A ref's object as git reads it: its loose file, else packed-refs; null: none; undefined: not a plain ref read here (symbolic, a folder, packed-refs not understood). */
export async function refValue(gitDir: string, ref: string): Promise<string | null | undefined> {
  const loose = await looseValue(path.join(gitDir, ref));
  if (loose !== null) return loose;
  const packed = await packedRefs(gitDir);
  return packed ? (packed.get(ref) ?? null) : undefined;
}

async function exists(file: string): Promise<boolean> {
  return fsp.lstat(file).then(
    () => true,
    () => false,
  );
}

/** Another packed ref that is a folder of `ref`, or has `ref` as its folder (git's D/F conflict). */
function conflictsWithPacked(ref: string, packed: Map<string, string>): boolean {
  for (const name of packed.keys()) if (name.startsWith(`${ref}/`) || ref.startsWith(`${name}/`)) return true;
  return false;
}

async function takeLock(gitDir: string, change: RefChange): Promise<Lock | null> {
  const file = path.join(gitDir, change.ref);
  const lock = `${file}.lock`;
  try {
    if (change.new !== null) await fsp.mkdir(path.dirname(file), { recursive: true });
    return { change, file, lock, handle: await fsp.open(lock, "wx"), renamed: false };
  } catch {
    return null;
  }
}

async function letGo(locks: Lock[]): Promise<void> {
  await Promise.all(
    locks.map(async (l) => {
      await l.handle.close().catch(() => undefined);
      if (!l.renamed) await removeFile(l.lock);
    }),
  );
}

/** Every lock's ref where its change expects it, and nothing in the way of the change. */
async function allHold(gitDir: string, locks: Lock[]): Promise<boolean> {
  const packed = await packedRefs(gitDir);
  if (!packed) return false;
  for (const { change, file } of locks) {
    if (await exists(path.join(gitDir, "logs", change.ref))) return false;
    const loose = await looseValue(file);
    if (loose === undefined) return false;
    if ((loose ?? packed.get(change.ref) ?? null) !== change.old) return false;
    if (change.old === null && conflictsWithPacked(change.ref, packed)) return false;
    if (change.new === null && packed.has(change.ref)) return false;
  }
  return true;
}

/** Removes the folders a deleted ref leaves empty, up to `refs/<kind>` (files-backend `try_remove_empty_parents`). */
async function removeEmptyParents(gitDir: string, ref: string): Promise<void> {
  const parts = ref.split("/");
  for (let n = parts.length - 1; n > 2; n--) {
    try {
      await fsp.rmdir(path.join(gitDir, ...parts.slice(0, n)));
    } catch {
      return;
    }
  }
}

/**
 * All of `changes` or none (receive-pack's atomic transaction; a non-atomic push whose every
 * command would pass comes to the same). "unmodelled": nothing changed, receive-pack should do it.
 * A failure while the locks are renamed into place throws, as git's own would leave it.
 */
export async function applyRefChanges(gitDir: string, changes: RefChange[]): Promise<TransactionOutcome> {
  const names = new Set(changes.map((c) => c.ref));
  if (names.size !== changes.length || changes.some((c) => c.old === null && c.new === null)) return "unmodelled";
  const locks: Lock[] = [];
  try {
    for (const change of [...changes].sort((a, b) => (a.ref < b.ref ? -1 : 1))) {
      const lock = await takeLock(gitDir, change);
      if (!lock) return "unmodelled";
      locks.push(lock);
    }
    if (!(await allHold(gitDir, locks))) return "unmodelled";
    for (const l of locks) {
      if (l.change.new === null) {
        await removeFile(l.file);
        continue;
      }
      await l.handle.writeFile(`${l.change.new}\n`);
      await l.handle.close();
      await fsp.rename(l.lock, l.file);
      l.renamed = true;
    }
  } finally {
    await letGo(locks);
  }
  // After the locks are gone, as git does: a deleted ref's lock file would keep its folder from being empty.
  for (const l of locks) if (l.change.new === null) await removeEmptyParents(gitDir, l.change.ref);
  return "done";
}
