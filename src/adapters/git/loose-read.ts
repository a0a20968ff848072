/**
 * Commits and trees read straight from the clone's loose objects (gitformat-loose: zlib of
 * `<type> <size>\0<body>`), without a `cat-file` process: what a Lane's rebase reads of its own
 * commit and of the base a fetch just unpacked (ADR 0483). Since ADR 0501 an object that is not
 * loose is read from the clone's packs too (pack-read.ts: a `git clone`'s pack holds the first
 * base); one that reads from neither is null, and the caller leaves the question to git.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { cloneStore } from "./clone-store";
import { gitPathExists, readGitFile, readGitText } from "./git-dir-files";
import { readPacked } from "./pack-read";
import { LruMemo } from "../lru-memo";
import type { RepoContext } from "./repo-context";

const SHA1 = /^[0-9a-f]{40}$/;

/** A loose object's type and body; null when it is not a readable loose SHA-1 object here. */
export async function readLoose(ctx: RepoContext, id: string): Promise<{ type: string; body: Buffer } | null> {
  if (!SHA1.test(id)) return null;
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1") return null;
  const file = readGitFile(join(store.dir, id.slice(0, 2), id.slice(2)));
  if (!file) return null;
  let raw: Buffer;
  try {
    raw = inflateSync(file);
  } catch {
    return null;
  }
  const nul = raw.indexOf(0);
  const header = /^(commit|tree|blob|tag) (\d+)$/.exec(raw.toString("latin1", 0, nul < 0 ? 0 : nul));
  if (!header || Number(header[2]) !== raw.length - nul - 1) return null;
  return { type: header[1]!, body: raw.subarray(nul + 1) };
}

/**
 * The commits and trees a Run has read, by object store and id (ADR 0508). A Run reads the same few
 * again and again: at K = 4, 141 object reads a ticket, of 10 distinct objects (a fetch's proof walks
 * each outside entry's path down from the root tree; a take's and a rebase's walks read the same
 * commits), each an open, an fstat, a read, a close and an inflate. An object's name is its contents'
 * hash and git never writes another body under a name, so a second read of one gives the first's
 * answer; what was read is what any later read here would have been handed. Only what did read is
 * kept (an object that is absent now may be fetched later), per store (the clone's having it is part
 * of the answer), and only commits and trees of at most MEMO_BODY_MAX bytes, 1024 of them,
 * the least recently used dropped first (at most 16 MB). Callers read a body, never write it.
 */
const MEMO_BODY_MAX = 16 * 1024;
const memo = new LruMemo<string, { type: string; body: Buffer }>(1024);

/** How many objects the memo holds and how many reads it answered (for its tests). */
export function objectMemoStats(): { size: number; hits: number } {
  return { size: memo.size, hits: memo.hits };
}

/** An object's type and body, loose or else packed (pack-read.ts); null when it reads from neither here. */
export async function readObject(ctx: RepoContext, id: string): Promise<{ type: string; body: Buffer } | null> {
  if (!SHA1.test(id)) return null;
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1") return null;
  const key = `${store.dir}\0${id}`;
  const known = memo.get(key);
  if (known) return known;
  const obj = (await readLoose(ctx, id)) ?? readPacked(join(store.dir, "pack"), id);
  if (obj && (obj.type === "commit" || obj.type === "tree") && obj.body.length <= MEMO_BODY_MAX) {
    memo.set(key, obj);
  }
  return obj;
}

export interface Commit {
  id: string;
  tree: string;
  parents: string[];
  /** The `author` line after `author `, as written. */
  author: string;
  /** Headers other than tree, parent, author, committer (encoding, gpgsig, mergetag, …). */
  otherHeaders: boolean;
  message: Buffer;
}

/** A commit, parsed; null when it does not read here (readObject) or its headers do not read. */
export async function readCommit(ctx: RepoContext, id: string): Promise<Commit | null> {
  const obj = await readObject(ctx, id);
  if (!obj || obj.type !== "commit") return null;
  const end = obj.body.indexOf("\n\n");
  if (end < 0) return null;
  const lines = obj.body.toString("utf8", 0, end).split("\n");
  let tree: string | null = null;
  let author: string | null = null;
  let committer = false;
  const parents: string[] = [];
  let otherHeaders = false;
  for (const line of lines) {
    const space = line.indexOf(" ");
    const key = space < 0 ? line : line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === "tree" && tree === null && SHA1.test(value)) tree = value;
    else if (key === "parent" && SHA1.test(value)) parents.push(value);
    else if (key === "author" && author === null) author = value;
    else if (key === "committer" && !committer) committer = true;
    else otherHeaders = true;
  }
  if (tree === null || author === null || !committer) return null;
  return { id, tree, parents, author, otherHeaders, message: obj.body.subarray(end + 2) };
}

/** The commits from `tip` down its single parents while each is loose, at most `limit`. */
export async function chain(ctx: RepoContext, tip: string, limit: number): Promise<Commit[]> {
  const out: Commit[] = [];
  for (let id: string | undefined = tip; id !== undefined && out.length < limit;) {
    const commit = await readCommit(ctx, id);
    if (!commit) break;
    out.push(commit);
    id = commit.parents.length === 1 ? commit.parents[0] : undefined;
  }
  return out;
}

/** A tree's entries by name: mode and id; null when it does not read here (readObject). */
export async function readTree(ctx: RepoContext, id: string): Promise<Map<string, { mode: string; id: string }> | null> {
  const obj = await readObject(ctx, id);
  if (!obj || obj.type !== "tree") return null;
  return treeEntries(obj.body);
}

/** A SHA-1 tree's body read as its entries by name: mode and id; null when it does not read. */
export function treeEntries(body: Buffer): Map<string, { mode: string; id: string }> | null {
  const entries = new Map<string, { mode: string; id: string }>();
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > body.length) return null;
    entries.set(body.toString("utf8", space + 1, nul), { mode: body.toString("latin1", at, space), id: body.toString("hex", nul + 1, nul + 21) });
    at = nul + 21;
  }
  return entries;
}

/**
 * The paths whose entries differ between two trees (added, removed, changed, mode changed), down
 * through the subtrees that differ; null when a tree needed is not loose.
 */
export async function changedPaths(ctx: RepoContext, a: string, b: string, prefix = ""): Promise<string[] | null> {
  if (a === b) return [];
  const [left, right] = await Promise.all([readTree(ctx, a), readTree(ctx, b)]);
  if (!left || !right) return null;
  const out: string[] = [];
  for (const name of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(name);
    const r = right.get(name);
    if (l && r && l.id === r.id && l.mode === r.mode) continue;
    if (l?.mode === "40000" && r?.mode === "40000") {
      const inner = await changedPaths(ctx, l.id, r.id, `${prefix}${name}/`);
      if (!inner) return null;
      out.push(...inner);
    } else out.push(`${prefix}${name}`);
  }
  return out.sort();
}

/**
 * Whether the clone's history is the one its commits write down: no `shallow` file (git takes a
 * shallow commit for a root), no `info/grafts`, no replace refs (git reads another object in a
 * replaced one's place). Only then may a walk of loose commits answer for `rev-list` (ADR 0488).
 */
export async function historyAsWritten(ctx: RepoContext): Promise<boolean> {
  const { commonDir } = await cloneStore(ctx.git, ctx.root);
  const shallow = gitPathExists(join(commonDir, "shallow"));
  const grafts = gitPathExists(join(commonDir, "info", "grafts"));
  const packed = readGitText(join(commonDir, "packed-refs")) ?? "";
  const replaced = await readdir(join(commonDir, "refs", "replace")).then(
    (names) => names.length > 0,
    (e: NodeJS.ErrnoException) => e.code !== "ENOENT",
  );
  return !shallow && !grafts && !replaced && !packed.includes(" refs/replace/");
}

/**
 * The files `git diff --name-only --no-renames <a> <b>` names (ADR 0488): every path below the
 * two trees whose blob, link or mode differs, a subtree on one side only named file by file (a
 * `null` tree is the empty one); null when a tree needed is not loose, or a submodule is met (its
 * diff follows configuration this does not read).
 */
export async function changedFiles(ctx: RepoContext, a: string | null, b: string | null, prefix = ""): Promise<string[] | null> {
  if (a === b) return [];
  const [left, right] = await Promise.all([
    a ? readTree(ctx, a) : new Map<string, { mode: string; id: string }>(),
    b ? readTree(ctx, b) : new Map<string, { mode: string; id: string }>(),
  ]);
  if (!left || !right) return null;
  const out: string[] = [];
  for (const name of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(name);
    const r = right.get(name);
    if (l && r && l.id === r.id && l.mode === r.mode) continue;
    if (l?.mode === "160000" || r?.mode === "160000") return null;
    const lTree = l?.mode === "40000" ? l.id : null;
    const rTree = r?.mode === "40000" ? r.id : null;
    // A file on either side is named once; a tree on either side is named by the files under it.
    if ((l && !lTree) || (r && !rTree)) out.push(`${prefix}${name}`);
    if (lTree || rTree) {
      const inner = await changedFiles(ctx, lTree, rTree, `${prefix}${name}/`);
      if (!inner) return null;
      out.push(...inner);
    }
  }
  return out;
}
