/**
 * Git lock files a killed sandbox left in its repositories (ADR 0486). A ref is written under
 * `<ref>.lock`, by git and by the pushes this process takes itself (loose-ref-transaction.ts); a
 * sandbox SIGKILLed mid-write leaves the lock, and every later push to that ref is refused
 * ("cannot lock ref") for as long as the data folder lives, which GitHub never does to a
 * repository. So at start, before it serves, the sandbox removes the locks of its repositories
 * that no live process can hold, and says which.
 *
 * A lock holds no owner. The data folder is the sandbox's own (ADR 0222), and the only other
 * processes at work in a repository are git's, which chdir into it (http-backend and the
 * receive-pack or upload-pack it runs) or are given it by path (the sandbox's `--git-dir` calls):
 * a git of the killed sandbox may outlive it for a moment (its process groups are its own). A
 * repository with such a process keeps its locks; where procfs cannot be read, only a lock older
 * than STALE_LOCK_MS (git holds one for milliseconds) is taken for stale. What is looked at: the
 * lock files at the top of the repository (HEAD.lock, packed-refs.lock, config.lock, ...) and
 * under refs/.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { STALE_LOCK_MS, inside, otherProcessPaths } from "../adapters/git/stale-locks";

export interface LeftLockOptions {
  /** Root of procfs; null when this OS has none (then only the age rule applies). */
  procRoot?: string | null;
  now?: number;
}

export interface LeftLocks {
  /** Removed: `<repository>/<lock>`, each with the object it was to write when it held one. */
  removed: string[];
  /** Left where they are: a live process works in their repository (or, without procfs, they are new). */
  kept: string[];
}

async function locksUnder(dir: string, recurse: boolean): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const e of entries) {
    const at = path.join(dir, e.name);
    if (e.isFile() && e.name.endsWith(".lock")) found.push(at);
    else if (recurse && e.isDirectory()) found.push(...(await locksUnder(at, true)));
  }
  return found;
}

/** What a ref lock was to write, for the log: its object id, when it holds exactly one. */
async function lockNote(lock: string, gitDir: string): Promise<string> {
  const name = `${path.basename(path.dirname(gitDir))}/${path.basename(gitDir)}/${path.relative(gitDir, lock)}`;
  const text = await fsp.readFile(lock, "utf8").catch(() => "");
  return /^[0-9a-f]{40}\n?$/.test(text) ? `${name} (was to write ${text.trim()})` : name;
}

/** Removes the locks no live process can hold in `gitDirs` (the sandbox's repositories), before it serves. */
export async function clearLeftLocks(gitDirs: string[], opts: LeftLockOptions = {}): Promise<LeftLocks> {
  const found: { gitDir: string; locks: string[] }[] = [];
  for (const gitDir of gitDirs) {
    const locks = [...(await locksUnder(gitDir, false)), ...(await locksUnder(path.join(gitDir, "refs"), true))];
    if (locks.length) found.push({ gitDir, locks });
  }
  const out: LeftLocks = { removed: [], kept: [] };
  if (found.length === 0) return out;
  // Read once, and only when there is a lock at all: the usual start reads no procfs.
  const working = await otherProcessPaths(opts.procRoot === undefined ? "/proc" : opts.procRoot, true);
  const now = opts.now ?? Date.now();
  for (const { gitDir, locks } of found) {
    const busy = working !== null && working.some((p) => inside(gitDir, p));
    for (const lock of locks) {
      const note = await lockNote(lock, gitDir);
      const mtimeMs = (await fsp.stat(lock).catch(() => null))?.mtimeMs;
      if (mtimeMs === undefined) continue;
      if (busy || (working === null && now - mtimeMs < STALE_LOCK_MS)) {
        out.kept.push(note);
        continue;
      }
      await fsp.rm(lock, { force: true });
      out.removed.push(note);
    }
  }
  return out;
}
