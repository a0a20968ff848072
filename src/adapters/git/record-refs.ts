/**
 * Records kept on refs of the remote outside refs/heads (one ref per ticket's State): listed with
 * one `ls-remote`, their objects fetched only when this clone lacks them, and moved by
 * compare-and-swap pushes with an explicit lease. The fetches write no local ref (nothing for two
 * processes of one Host to contend on); the objects stay in the object store for the reads that follow.
 * Over http(s) the listing and the pushes are spoken from this process, no git started (ADR 0470);
 * whatever that cannot do is left to git, call by call.
 */
import { Failure } from "../../core/errors";
import { isLostRace, isMissingRemoteRef } from "./git-runner";
import type { HttpPushOutcome } from "./record-push-http";
import { pushOverHttp } from "./record-push-http";
import { refMatcher } from "./ref-patterns";
import type { RepoContext } from "./repo-context";
import { adoptFetched, fetchPrivately } from "./repo";
import { assertFetchable, fetchObjects, hasLooseObject, trackingTips } from "./fetch-http";
import { overHttp } from "./over-http";
import { cloneStore } from "./clone-store";
import { readCommit, readObject, readTree } from "./loose-read";

/** ref -> sha on the remote, for every ref matching one of `patterns` (ls-remote's tail match). */
export async function lsRemoteRefs(ctx: RepoContext, patterns: string[]): Promise<Map<string, string>> {
  const listed = await overHttp(ctx, "ls-remote", async (client) => {
    const matches = refMatcher(patterns);
    const adv = await client.advertise("upload-pack");
    return new Map(adv.refs.filter(([ref]) => matches(ref)));
  });
  if (listed) return listed;
  const res = await ctx.net.call(["ls-remote", { url: true }, ...patterns]);
  if (res.code !== 0) throw ctx.git.failure(["ls-remote", ctx.remote, ...patterns], res);
  const out = res.stdout.toString("utf8");
  const refs = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [sha, ref] = line.split("\t");
    if (sha && ref) refs.set(ref, sha);
  }
  return refs;
}

/** The shas of `shas` (each once) with no loose object in the clone, read from files. */
async function notLoose(ctx: RepoContext, shas: string[]): Promise<string[]> {
  const unique = [...new Set(shas)];
  const loose = await Promise.all(unique.map((sha) => hasLooseObject(ctx, sha)));
  return unique.filter((_, i) => !loose[i]);
}

/** The commits of `shas` this clone has no copy of (one `cat-file --batch-check`). */
async function absent(ctx: RepoContext, shas: string[]): Promise<Set<string>> {
  const unique = [...new Set(shas)];
  if (unique.length === 0) return new Set();
  const out = await ctx.git.text(["cat-file", "--batch-check"], { cwd: ctx.root, input: `${unique.join("\n")}\n` });
  return new Set(
    out
      .split("\n")
      .filter((l) => l.endsWith(" missing"))
      .map((l) => l.split(" ")[0]!),
  );
}

/**
 * Makes sure this clone has the objects of every ref in `refs` (ref -> sha the remote showed).
 * "moved" when a ref went away or moved between the listing and the fetch: the caller reads again.
 */
export async function fetchRecords(ctx: RepoContext, refs: Map<string, string>, known: ReadonlySet<string> = new Set()): Promise<"ok" | "moved"> {
  // A record commit the Run wrote, or a small fetch brought, is a loose object: found from its file, no process (ADR 0476).
  const unsure = await notLoose(
    ctx,
    [...refs.values()].filter((sha) => !known.has(sha)),
  );
  if (unsure.length === 0) return "ok";
  const spoken = await overHttp(ctx, "fetch", async (client) => {
    await assertFetchable(ctx);
    // The listing was read a moment ago: no second advertisement, and no process asking which of
    // `unsure` are packed here (a packed one comes again, harmlessly). A want the remote cannot serve is a move.
    const here = [...refs.values()].filter((sha) => !unsure.includes(sha));
    const tips = await trackingTips(ctx);
    // `here` and `known` are records the clone has, not refs of it: good haves, no proof of a whole history.
    const fetched = await fetchObjects(ctx, client, { wants: unsure, haves: [...here, ...known, ...tips], caps: null, whole: tips });
    if (fetched === "not-our-ref") return "moved" as const;
    // No ref is set for records: what the pack holds is the clone's, whole, from here on.
    await fetched.release();
    return "ok" as const;
  });
  if (spoken) return spoken;
  const missing = await absent(ctx, unsure);
  if (missing.size === 0) return "ok";
  const wanted = [...refs].filter(([, sha]) => missing.has(sha)).map(([ref]) => ref);
  const net = await fetchPrivately(ctx, wanted);
  if (net.code !== 0) {
    if (isMissingRemoteRef(net.stderr)) return "moved";
    throw ctx.git.failure(["fetch", ctx.remote, ...wanted], net);
  }
  // Only the objects were wanted: they move into the clone, no local ref is written (ADR 0473).
  await adoptFetched(ctx);
  return (await absent(ctx, [...missing])).size === 0 ? "ok" : "moved";
}

/** A path `<commit>:<path>` names from the tree's top: no `./` or `../` (those are git's, relative to the cwd), no empty part. */
const PLAIN_PATH = /^(?!\.\.?\/)[^/\n]+(\/[^/\n]+)*$/;
const SHA1 = /^[0-9a-f]{40}$/;

/**
 * What `cat-file --batch` answers for one spec (a blob's id, or `<commit>:<path>`), read from the
 * clone's objects, loose or packed (loose-read.ts): the blob's bytes, or null where the path names
 * nothing or no blob. undefined when that is not certain here (an object that does not read, another
 * shape of spec): git is asked.
 */
async function readPathHere(ctx: RepoContext, spec: string): Promise<Buffer | null | undefined> {
  const colon = spec.indexOf(":");
  if (colon < 0) {
    if (!SHA1.test(spec)) return undefined;
    const obj = await readObject(ctx, spec);
    return obj ? (obj.type === "blob" ? obj.body : null) : undefined;
  }
  const [rev, path] = [spec.slice(0, colon), spec.slice(colon + 1)];
  if (!SHA1.test(rev) || !PLAIN_PATH.test(path)) return undefined;
  const commit = await readCommit(ctx, rev);
  if (!commit) return undefined;
  let id = commit.tree;
  let mode = "40000";
  for (const part of path.split("/")) {
    if (mode !== "40000") return null;
    const tree = await readTree(ctx, id);
    if (!tree) return undefined;
    const entry = tree.get(part);
    if (!entry) return null;
    ({ id, mode } = entry);
  }
  // A gitlink names a commit of another repository: no blob here, as cat-file says "missing".
  if (mode === "40000" || mode === "160000") return null;
  const blob = await readObject(ctx, id);
  return blob ? (blob.type === "blob" ? blob.body : null) : undefined;
}

/**
 * The content of `<commit>:<path>` (or of a blob named by its id) for each spec, in order; null where
 * there is no such file. Read from the clone's objects when each one reads there (the records the
 * Run wrote or a small fetch unpacked, ADR 0509), else one `cat-file --batch` for them all.
 */
export async function readPaths(ctx: RepoContext, specs: string[]): Promise<(Buffer | null)[]> {
  if (specs.length === 0) return [];
  const here = await Promise.all(specs.map((spec) => readPathHere(ctx, spec)));
  if (here.every((c) => c !== undefined)) return here as (Buffer | null)[];
  const res = await ctx.git.raw(["cat-file", "--batch"], { cwd: ctx.root, input: `${specs.join("\n")}\n` });
  if (res.code !== 0) throw ctx.git.failure(["cat-file", "--batch"], res);
  const buf = res.stdout;
  const found: (Buffer | null)[] = [];
  let pos = 0;
  for (let i = 0; i < specs.length && pos < buf.length; i++) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) break;
    const header = buf.subarray(pos, nl).toString("utf8");
    pos = nl + 1;
    // "<spec> missing" (or ambiguous) has no content after it; "<sha> <type> <size>" does.
    const m = / (blob|tree|commit|tag) ([0-9]+)$/.exec(header);
    if (!m) {
      found.push(null);
      continue;
    }
    const size = Number(m[2]);
    found.push(m[1] === "blob" ? buf.subarray(pos, pos + size) : null);
    pos += size + 1;
  }
  while (found.length < specs.length) found.push(null);
  return found;
}

/** One ref to move in a push: to `commit` (null deletes it), only if it is still at `expected` (null: must not exist). */
export interface RefMove {
  ref: string;
  commit: string | null;
  expected: string | null;
}

/**
 * Moves `ref` on the remote to `commit` (null deletes it) only if it is still at `expected` (null:
 * must not exist). "lost" when another writer moved it first; any other refusal throws, redacted.
 * Unsigned and without hooks: these refs hold records, not code.
 */
export function swapRef(ctx: RepoContext, ref: string, commit: string | null, expected: string | null): Promise<"pushed" | "lost"> {
  return swapRefs(ctx, [{ ref, commit, expected }]);
}

/**
 * swapRef for several refs in one push, each under its own lease, all or none (`--atomic`, ADR
 * 0431): "lost" when any lease refused, and then nothing moved.
 */
export async function swapRefs(ctx: RepoContext, moves: RefMove[]): Promise<"pushed" | "lost"> {
  const out = await pushRecords(ctx, moves);
  if (out.outcome !== "refused") return out.outcome;
  throw new Failure("git", ctx.git.redact(`The remote refused the push to ${moves.map((m) => m.ref).join(", ")}: ${out.said.trim().slice(0, 2000)}`));
}

/**
 * The push of swapRefs and of the record branches (snapshot.ts): from this process over smart
 * HTTP (sha1 repositories), else `git push`. "refused" carries what the remote said, as git shows it.
 */
export async function pushRecords(ctx: RepoContext, moves: RefMove[]): Promise<HttpPushOutcome> {
  const sha1 = (await cloneStore(ctx.git, ctx.root)).algorithm === "sha1";
  const pushed = sha1 ? await overHttp(ctx, "push", (client) => pushOverHttp(client, moves)) : null;
  if (pushed) return pushed;
  const res = await ctx.net.call([
    "push",
    "--porcelain",
    "--no-verify",
    "--no-signed",
    ...(moves.length > 1 ? ["--atomic"] : []),
    ...moves.map((m) => `--force-with-lease=${m.ref}:${m.expected ?? ""}`),
    { url: true },
    ...moves.map((m) => `${m.commit ?? ""}:${m.ref}`),
  ]);
  if (res.code === 0) return { outcome: "pushed" };
  const said = `${res.stdout.toString("utf8")}\n${res.stderr}`;
  if (isLostRace(said)) return { outcome: "lost" };
  return { outcome: "refused", said };
}
