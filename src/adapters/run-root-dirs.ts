/**
 * Folders of the run root: private (0700) and real. Run directories hold run.json, logs and
 * transcripts; the code an agent writes runs as the same user, so a symbolic link planted on the
 * way would send the Run's writes (or reads) anywhere. Every step from the run root down is
 * checked with lstat and refused when it is a link; a step that is missing is made 0700.
 *
 * In place, not through `fs/promises` (ADR 0508): the run root is on the local disk (fs-run-root.ts),
 * each of these is one system call of ~10–20 µs, and `fs/promises` made each a threadpool trip of
 * ~150–400 µs of the Run's CPU, ~6 of them at every run.json write (one at each Stage's start).
 */
import { chmodSync, lstatSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { Refusal } from "../core/errors";

function errCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as { code?: string }).code : undefined;
}

function linkRefusal(path: string, root: string): Refusal {
  return new Refusal(
    "bad-input",
    `${path} is a symbolic link. Ticket Runner keeps run directories only in real folders of its run root ${root}, so a link cannot send its files elsewhere. Remove the link and run again: \`rm ${path}\`.`,
    {
      path,
      next: `rm ${path}`,
    },
  );
}

/** Makes (0700) or checks one folder: a link is refused, anything else but a folder too. */
function realFolder(path: string, root: string): void {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) throw linkRefusal(path, root);
    if (!st.isDirectory())
      throw new Refusal("bad-input", `${path} is in the way of a run directory and is not a folder. Move it away and run again.`, { path });
  } catch (error) {
    if (errCode(error) !== "ENOENT") throw error;
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (e) {
      if (errCode(e) !== "EEXIST") throw e;
    }
  }
}

/**
 * Makes sure `dir` is a real folder, and so is every folder between the run root and it. The run
 * root itself is made 0700, and narrowed to 0700 when this user made it wider (an older version).
 */
export function safeRunDir(root: string, dir: string): void {
  mkdirSync(dirname(root), { recursive: true });
  realFolder(root, root);
  const st = lstatSync(root);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(root, 0o700);
  const rel = relative(root, dir);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    // A --run-dir outside the run root: its parents are the person's; the folder itself is checked.
    mkdirSync(dirname(dir), { recursive: true });
    realFolder(dir, root);
    return;
  }
  const parts = rel === "" ? [] : rel.split(sep);
  for (let i = 1; i <= parts.length; i++) realFolder(join(root, ...parts.slice(0, i)), root);
}

/** A file of a run directory that is a link: refused like a folder that is one. */
export function assertNotLink(path: string, root: string): void {
  let st;
  try {
    st = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return;
  }
  if (st?.isSymbolicLink()) throw linkRefusal(path, root);
}
