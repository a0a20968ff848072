/**
 * A tracking ref moved after a fetch or a push, written as `git update-ref <ref> <sha>` writes it
 * (refs/files-backend.c), without the process (ADR 0494): the ref's `.lock` taken exclusively, the
 * new value written into it, one line appended to the ref's reflog (`<old> <new> <committer>
 * <seconds> <zone>`, no message, as update-ref without `-m` writes it), and the lock renamed over
 * the ref. Only for a `refs/remotes/` ref that is loose and already has a reflog (so git appends
 * whatever core.logAllRefUpdates says), to a commit the clone holds loose, with a committer the
 * runner knows git would write as it is; anything else, and a lock held by another writer, is
 * git's, as before.
 */
import { appendFile, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RepoContext } from "./repo-context";
import { cloneStore } from "./clone-store";
import { LOOSE_SHA1, takeLock } from "./cleanup-from-files";
import { hasLooseObject } from "./fetch-http";
import { plainRef } from "./lane-head";

/** git's reflog time: seconds and the zone's offset as ±hhmm (date.c date_string). */
export function reflogTime(at: Date): string {
  const offset = -at.getTimezoneOffset();
  const abs = Math.abs(offset);
  const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  return `${Math.floor(at.getTime() / 1000)} ${zone}`;
}

/**
 * Sets `ref` to `sha` from files: true when done (or when it already held `sha`: git writes
 * nothing then), false with nothing changed when git must do it. A failure after the reflog line
 * was written is thrown, as git's would be.
 */
export async function setTrackingRefFromFiles(ctx: RepoContext, ref: string, sha: string): Promise<boolean> {
  const { commonDir, algorithm } = await cloneStore(ctx.git, ctx.root);
  if (algorithm !== "sha1" || !/^[0-9a-f]{40}$/.test(sha) || !/^refs\/remotes\/./.test(ref) || !plainRef(ref)) return false;
  const committer = ctx.git.reflogCommitter();
  if (!committer) return false;
  const log = join(commonDir, "logs", ref);
  const logged = await stat(log).then(
    (s) => s.isFile(),
    () => false,
  );
  // update-ref refuses an object the clone lacks; a packed one is git's to find. A ref the main
  // checkout's HEAD names gets a line in HEAD's reflog too (refs/files-backend.c split_head_update).
  const head = await readFile(join(commonDir, "HEAD"), "utf8").catch(() => null);
  if (!logged || head === null || head.trim() === `ref: ${ref}` || !(await hasLooseObject(ctx, sha))) return false;
  const file = join(commonDir, ref);
  const lock = `${file}.lock`;
  if (!(await takeLock(lock))) return false;
  let held = true;
  try {
    const old = LOOSE_SHA1.exec(await readFile(file, "utf8").catch(() => ""))?.[1];
    if (!old) return false;
    if (old === sha) return true;
    await writeFile(lock, `${sha}\n`);
    await appendFile(log, `${old} ${sha} ${committer} ${reflogTime(new Date())}\n`);
    await rename(lock, file);
    held = false;
    return true;
  } finally {
    if (held) await rm(lock, { force: true });
  }
}
