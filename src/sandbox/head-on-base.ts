/**
 * Whether a pull request's head is a child of its base, read from the head commit's own parent
 * lines by the repository's `cat-file --batch` (object-reader.ts) instead of a git process (ADR
 * 0492). A Run rebases its branch onto the base and pushes one commit on top of it, so this is how
 * most pull requests of the sandbox are opened, and what two of git's answers come to then:
 * - `git rev-list --count <base>..<head>` is not 0 (the head is not the base, and no commit is its
 *   own ancestor), which is all opening a pull request asks of it;
 * - `git merge-tree --write-tree <base> <head>` is the head's own tree, without conflicts: the merge
 *   base is <base> itself, so every path takes the head's side.
 * What could make git see other parents than the commit's bytes say is not modelled: grafts,
 * replace refs (refs/replace/*, whose objects git reads instead), a shallow repository. With any of
 * them, a head that is not the base's child, or an object that does not read, the caller asks git
 * as before (null).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { gitOk } from "./git";
import type { CommitLookups } from "./commit-lookup";
import type { ObjectReaders } from "./object-reader";
import { parseCommit } from "./upload-pack-in-process";
import { pathExists } from "./path-exists";

/** The repository's cat-file batches (the App's). */
export interface Readers {
  objects: ObjectReaders;
  commits: CommitLookups;
}

/** No grafts, no shallow file, no replace ref loose or packed: a commit's parents are what its bytes say. */
async function parentsAsWritten(gitDir: string): Promise<boolean> {
  const files = ["info/grafts", "shallow", "refs/replace"].map((f) => pathExists(path.join(gitDir, f)));
  if ((await Promise.all(files)).some(Boolean)) return false;
  let packed: string;
  try {
    packed = await fsp.readFile(path.join(gitDir, "packed-refs"), "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT";
  }
  return !packed.includes(" refs/replace/");
}

/** The head commit's tree when `head` is a child of `base` (one of its parents); null: git must answer. */
export async function childOfBase(repo: Readers, gitDir: string, base: string, head: string): Promise<{ tree: string } | null> {
  if (base === head) return null;
  const read = await repo.objects.read(gitDir, head);
  if (read === null || read === "missing" || read.type !== "commit") return null;
  const commit = parseCommit(read.data);
  if (!commit?.parents.includes(base)) return null;
  // merge-tree would fail on a tree the repository lacks (one a push left unconnected): so does this.
  if (!(await repo.commits.isTree(gitDir, commit.tree))) return null;
  return (await parentsAsWritten(gitDir)) ? { tree: commit.tree } : null;
}

/** Whether `base..head` holds no commit (`git rev-list --count` says 0), asked of git only when the head is neither the base nor its child. */
export async function nothingAhead(repo: Readers, gitDir: string, base: string, head: string): Promise<boolean> {
  if (base === head) return true;
  if (await childOfBase(repo, gitDir, base, head)) return false;
  return (await gitOk(["rev-list", "--count", `${base}..${head}`], { gitDir })).trim() === "0";
}
