/**
 * Whether every object in a sandbox repository is known to be connected: each object it links to
 * (a commit's tree and parents, a tree's entries, a tag's object) is in the repository too (ADR
 * 0482). Then a push whose new objects all link to objects present is connected as git's
 * `rev-list --objects <new> --not --all` check would find it, without that walk.
 *
 * It holds in a repository made by the sandbox (initBare writes the mark) as long as its objects
 * come only from the sandbox's own git commands (write-tree, commit-tree, hash-object, merge-tree:
 * each checks its links) and from pushes taken in this process (every link of the pack checked,
 * by index-pack or, for a small pack, here: receive-in-process.ts, unpack-in-process.ts). receive-pack can take objects that do not hold (those of a
 * command it refused for missing objects, or a pack's objects no new ref reaches): the mark is
 * removed before any receive-pack that may take a pack, and a repository without it (made before
 * ADR 0482, or after such a push) has its pushes checked by receive-pack, as before.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";

const MARK = "sandbox-objects-connected";

export async function markConnected(gitDir: string): Promise<void> {
  await fsp.writeFile(path.join(gitDir, MARK), "Every object here links only to objects here (src/sandbox/objects-connected.ts).\n");
}

export async function unmarkConnected(gitDir: string): Promise<void> {
  await fsp.rm(path.join(gitDir, MARK), { force: true });
}

export async function knownConnected(gitDir: string): Promise<boolean> {
  return fsp.access(path.join(gitDir, MARK)).then(
    () => true,
    () => false,
  );
}
