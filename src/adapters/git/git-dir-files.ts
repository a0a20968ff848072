/**
 * The small files of a clone's git directory read at once, for the answers read from files rather
 * than from git (ADRs 0477, 0483, 0488): a loose ref, packed-refs, a loose object, a worktree's
 * HEAD. `fs/promises`' readFile is open, fstat, read and close, each a trip through libuv's
 * threadpool: ~150–200 µs of CPU a file on this VM, against ~15–25 µs read in place, and a Run
 * reads ~150 of these a ticket at K = 4 (ADR 0493). They are a few hundred bytes on the local disk.
 *
 * Read in place, a file that is not a regular one must not stop the Run's event loop: an agent
 * writes into the clone's object store and could leave a FIFO where an object's name is, whose open
 * waits for a writer. So the file is opened non-blocking and read only when it is a regular file;
 * anything else, and any error, reads as absent, as the callers took a failed readFile before.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from "node:fs";

/** The bytes of the regular file at `path` (links followed), or null when it is absent, not a regular file, or unreadable. */
export function readGitFile(path: string): Buffer | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    return fstatSync(fd).isFile() ? readFileSync(fd) : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `readGitFile` as UTF-8 text. */
export function readGitText(path: string): string | null {
  return readGitFile(path)?.toString("utf8") ?? null;
}

/** Whether anything is at `path` (links followed), as a `stat` that did not fail. */
export function gitPathExists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
