/**
 * Reads and writes worktree files named by an issue author. The names were already checked
 * (relative, no `..`, not in .git); here we also refuse to follow a symlink out of the worktree.
 */
import { promises as fsp } from "node:fs";
import { dirname, join, relative, isAbsolute } from "node:path";

export class PathEscapeError extends Error {}

async function insideWorktree(root: string, rel: string): Promise<string> {
  const realRoot = await fsp.realpath(root);
  const full = join(realRoot, rel);
  // The nearest existing ancestor must resolve inside the worktree.
  let probe = dirname(full);
  for (;;) {
    try {
      const real = await fsp.realpath(probe);
      const r = relative(realRoot, real);
      if (r.startsWith("..") || isAbsolute(r)) throw new PathEscapeError(`${rel} leads outside the worktree`);
      break;
    } catch (e) {
      if (e instanceof PathEscapeError) throw e;
      const parent = dirname(probe);
      if (parent === probe) throw e;
      probe = parent;
    }
  }
  try {
    const st = await fsp.lstat(full);
    if (st.isSymbolicLink()) throw new PathEscapeError(`${rel} is a symlink; the demo agent does not write through links`);
  } catch (e) {
    if (e instanceof PathEscapeError) throw e;
  }
  return full;
}

export async function writeWorktreeFile(root: string, rel: string, content: string): Promise<string> {
  const full = await insideWorktree(root, rel);
  await fsp.mkdir(dirname(full), { recursive: true });
  await fsp.writeFile(full, content);
  return full;
}

/** The file's text, or null when it does not exist. */
export async function readWorktreeFile(root: string, rel: string): Promise<string | null> {
  const full = await insideWorktree(root, rel);
  try {
    return await fsp.readFile(full, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}
