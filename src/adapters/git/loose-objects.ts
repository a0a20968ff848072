/**
 * The objects of the records the product writes (State records, the Run lock): blobs, trees and
 * commits written straight into the clone's object store as loose objects, as `git hash-object -w`,
 * `git mktree` and `git commit-tree` would write them, without starting those three processes for
 * every record write (ADR 0261). The format is git's own (gitformat-loose, gitformat-tree): a
 * header `<type> <size>\0`, the content, zlib-deflated, named by its SHA-1 (or SHA-256 in a
 * repository made with `--object-format=sha256`), written by loose-object-file.ts, so a
 * reader never sees half an object. Each object is also kept in memory for the push that sends it
 * (made-objects.ts, ADR 0470).
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { CloneStore } from "./clone-store";
import { cloneStore } from "./clone-store";
import type { GitIdentity } from "./git-runner";
import { DEFAULT_GIT_IDENTITY } from "./git-runner";
import type { RepoContext } from "./repo-context";
import { looseObjectId, writeLooseObjectFile } from "./loose-object-file";
import { rememberMade } from "./made-objects";

/** The clone's common git directory (absolute), asked of git once per clone and process with its object format. */
export async function commonDirOf(ctx: RepoContext): Promise<string> {
  return (await storeOf(ctx)).commonDir;
}

function storeOf(ctx: RepoContext): Promise<CloneStore> {
  return cloneStore(ctx.git, ctx.root);
}

async function writeObject(ctx: RepoContext, type: "blob" | "tree" | "commit", body: Buffer): Promise<string> {
  const store = await storeOf(ctx);
  const sha = looseObjectId(store.algorithm, type, body);
  // Kept for the push that sends it (ADR 0470): its pack is made from these, not read back from disk.
  rememberMade(sha, type, body);
  // A record rewrites many of the same trees and blobs: one stat spares their compression and write.
  if (
    await stat(join(store.dir, sha.slice(0, 2), sha.slice(2))).then(
      () => true,
      () => false,
    )
  )
    return sha;
  return writeLooseObjectFile(store.dir, store.algorithm, type, body);
}

export function writeBlobObject(ctx: RepoContext, content: string | Buffer): Promise<string> {
  return writeObject(ctx, "blob", typeof content === "string" ? Buffer.from(content, "utf8") : content);
}

interface Dir {
  files: Map<string, string>;
  dirs: Map<string, Dir>;
}

/** A tree, with its subtrees, from `path -> blob sha` (every file mode 100644). */
export async function writeTreeObject(ctx: RepoContext, files: Map<string, string>): Promise<string> {
  const top: Dir = { files: new Map(), dirs: new Map() };
  for (const [path, sha] of files) {
    const parts = path.split("/");
    let dir = top;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) dir.dirs.set(part, (next = { files: new Map(), dirs: new Map() }));
      dir = next;
    }
    dir.files.set(parts[parts.length - 1]!, sha);
  }
  return writeDir(ctx, top);
}

async function writeDir(ctx: RepoContext, dir: Dir): Promise<string> {
  const entries: { name: string; sortKey: string; mode: string; sha: string }[] = [];
  for (const [name, sub] of dir.dirs) entries.push({ name, sortKey: `${name}/`, mode: "40000", sha: await writeDir(ctx, sub) });
  for (const [name, sha] of dir.files) entries.push({ name, sortKey: name, mode: "100644", sha });
  // git orders entries by name bytes, a directory's name as if it ended in "/".
  entries.sort((a, b) => Buffer.compare(Buffer.from(a.sortKey, "utf8"), Buffer.from(b.sortKey, "utf8")));
  const body = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`, "utf8"), Buffer.from(e.sha, "hex")]));
  return writeObject(ctx, "tree", body);
}

/** A commit whose bytes the caller made (commit-text.ts): stored as they are, its id returned. */
export function writeCommitBytes(ctx: RepoContext, body: Buffer): Promise<string> {
  return writeObject(ctx, "commit", body);
}

/** A commit as `git commit-tree` makes it with the product's identity, dated now. */
export function writeCommitObject(ctx: RepoContext, tree: string, parents: string[], message: string, at = new Date()): Promise<string> {
  const who: GitIdentity = ctx.git.options.identity ?? DEFAULT_GIT_IDENTITY;
  const stamp = `${who.name} <${who.email}> ${Math.floor(at.getTime() / 1000)} +0000`;
  const text = [
    `tree ${tree}`,
    ...parents.map((p) => `parent ${p}`),
    `author ${stamp}`,
    `committer ${stamp}`,
    "",
    message.endsWith("\n") ? message : `${message}\n`,
  ].join("\n");
  return writeObject(ctx, "commit", Buffer.from(text, "utf8"));
}
