/**
 * Files kept on a branch of the remote, written from git objects alone: blobs, a tree and a commit
 * written straight to the object store (loose-objects.ts), and a push with an explicit lease. The
 * main checkout's index and work tree are never touched. Used by the State branch and the Run lock.
 */
import { Failure } from "../../core/errors";
import { readPushRefusal } from "./push-refusal";
import { writeBlobObject, writeCommitObject, writeTreeObject } from "./loose-objects";
import { pushRecords } from "./record-refs";
import type { RepoContext } from "./repo-context";
import { fetchRef, resolveRef } from "./repo";

/** path inside the branch -> blob sha */
export type TreeFiles = Map<string, string>;

/** Where this clone keeps its copy of a product branch: the usual remote-tracking ref. */
function trackingRef(ctx: RepoContext, branch: string): string {
  return `refs/remotes/${ctx.remote}/${branch}`;
}

/** Fetches the branch and returns its tip, or null when the remote has no such branch. */
export async function readTip(ctx: RepoContext, branch: string): Promise<string | null> {
  const ref = trackingRef(ctx, branch);
  if ((await fetchRef(ctx, branch, ref)) === "missing") return null;
  return resolveRef(ctx, ref);
}

export async function listFiles(ctx: RepoContext, commit: string | null): Promise<TreeFiles> {
  const files: TreeFiles = new Map();
  if (!commit) return files;
  const out = await ctx.git.text(["ls-tree", "-r", "-z", "--full-tree", commit], { cwd: ctx.root });
  for (const record of out.split("\0")) {
    if (!record) continue;
    const tab = record.indexOf("\t");
    const [, type, sha] = record.slice(0, tab).split(" ");
    if (type === "blob" && sha) files.set(record.slice(tab + 1), sha);
  }
  return files;
}

/** Reads many blobs in one `git cat-file --batch`. */
export async function readBlobs(ctx: RepoContext, shas: string[]): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  const unique = [...new Set(shas)];
  if (unique.length === 0) return result;
  const res = await ctx.git.raw(["cat-file", "--batch"], { cwd: ctx.root, input: unique.join("\n") + "\n" });
  if (res.code !== 0) throw ctx.git.failure(["cat-file", "--batch"], res);
  const buf = res.stdout;
  let pos = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) break;
    const header = buf.subarray(pos, nl).toString("utf8").split(" ");
    pos = nl + 1;
    if (header[1] === "missing" || header.length < 3) continue;
    const size = Number(header[2]);
    result.set(header[0]!, buf.subarray(pos, pos + size));
    pos += size + 1; // content, then a newline
  }
  return result;
}

/** A blob in the clone's object store (loose-objects.ts: no process started). */
export function writeBlob(ctx: RepoContext, content: string | Buffer): Promise<string> {
  return writeBlobObject(ctx, content);
}

/** A tree of `files` (paths may have directories), written straight to the object store: no index is touched. */
export function buildTree(ctx: RepoContext, files: TreeFiles): Promise<string> {
  return writeTreeObject(ctx, files);
}

export function commitTree(ctx: RepoContext, tree: string, parents: string[], message: string): Promise<string> {
  return writeCommitObject(ctx, tree, parents, message);
}

/**
 * Pushes `commit` to the branch only if the remote's tip is still `expected` (null: the branch
 * must not exist). "lost" when another writer moved it first; any other refusal throws, redacted.
 * Unsigned and without hooks: these branches hold records, not code.
 */
export async function pushWithLease(ctx: RepoContext, branch: string, commit: string, expected: string | null): Promise<"pushed" | "lost"> {
  // Over http(s) from this process, else `git push --force-with-lease` (record-refs.ts, ADR 0470).
  const out = await pushRecords(ctx, [{ ref: `refs/heads/${branch}`, commit, expected }]);
  if (out.outcome === "pushed") {
    await ctx.git.raw(["update-ref", trackingRef(ctx, branch), commit], { cwd: ctx.root });
    return "pushed";
  }
  if (out.outcome === "lost") return "lost";
  const said = out.said;
  // A repository rule over every branch may cover the Run lock: say which setting to change (ADR 0241).
  const refused = readPushRefusal(said, branch, "record");
  if (refused) throw new Failure("git", ctx.git.redact(`GitHub refused the write to ${branch}: ${refused.cause}. To fix: ${refused.fix}`));
  throw new Failure("git", ctx.git.redact(`The remote refused the push to ${branch}: ${said.trim().slice(0, 2000)}`));
}
