/**
 * A fetch answered in this process rather than by `git upload-pack --stateless-rpc` and the
 * `pack-objects` it starts (ADR 0487): the request the Runs' own fetch sends
 * (src/adapters/git/fetch-http.ts; protocol v0: `want` lines with side-band-64k and no-progress,
 * a flush, `have` lines, `done`), for wants whose new history is a line of commits down to one
 * the client has. The answer is upload-pack's negotiation, byte for byte (upload-pack.c
 * `get_common_commits` without multi_ack: `ACK <have>` while exactly one have is known common,
 * `NAK` when none is), then a pack on side-band 1 and a flush. The pack holds every new commit and
 * every tree and blob of theirs that differs from their parent's at the same path: each object
 * the wants reach is then in the pack or reachable from a commit the client has. Written with no
 * deltas, zlib per object and its SHA-1 trailer, as a pack git reads; its objects are not
 * pack-objects' choice byte for byte (git's may be deltas, or leave out a blob that only moved),
 * but the client's connectivity check holds for both (test/integration/sandbox/upload-pack-in-process.test.ts).
 *
 * Anything else is upload-pack's, given the same body: another request shape or capability
 * (multi_ack, include-tag, shallow, filter, progress), a config that says more than
 * uploadpack.allowAnySHA1InWant (which lets upload-pack take any want that exists, as here), a
 * shallow repository, alternates or grafts, a want that is missing or not a commit, a merge or a
 * root commit among the new ones, more than MAX_NEW_COMMITS of them, an object that does not read
 * (object-reader.ts), a pack over MAX_PACK.
 */
import path from "node:path";
import { buildPack } from "../adapters/git/pack-file";
import { ConfigListings } from "./config-state";
import type { GitObject, ObjectReaders } from "./object-reader";
import { pktLine } from "./smart-http";
import { pathExists } from "./path-exists";

/** A longer line of new commits (a clone, a far-behind fetch) is upload-pack's. */
export const MAX_NEW_COMMITS = 64;
/** A pack with more objects, or larger, is upload-pack's (which deltifies it). */
const MAX_OBJECTS = 4096;
const MAX_PACK = 32 * 1024 * 1024;
/** A request body larger than this is not the shape read here. */
export const MAX_FETCH_REQUEST = 64 * 1024;
/** sideband.c: a side-band-64k packet is at most LARGE_PACKET_MAX (65520) bytes, its four-byte length and band byte included. */
const SIDE_BAND_DATA = 65520 - 5;

const SHA1 = /^[0-9a-f]{40}$/;
/** The capabilities the Runs' fetch sends that change nothing here but side-band-64k (required with no-progress). */
const TAKEN = new Set(["side-band-64k", "no-progress", "ofs-delta", "thin-pack"]);

export interface FetchRequest {
  wants: string[];
  haves: string[];
}

/**
 * The wants and haves of a request in exactly the Runs' shape: `want <sha> <caps>` then `want
 * <sha>` lines, a flush, `have <sha>` lines, `done`, nothing after; null for anything else.
 */
export function parseFetchRequest(body: Buffer): FetchRequest | null {
  if (body.length > MAX_FETCH_REQUEST) return null;
  const lines: (string | null)[] = [];
  for (let at = 0; at < body.length;) {
    const head = body.toString("latin1", at, at + 4);
    if (!/^[0-9a-f]{4}$/.test(head)) return null;
    const length = parseInt(head, 16);
    if (length === 0) {
      lines.push(null);
      at += 4;
      continue;
    }
    if (length < 5 || at + length > body.length) return null;
    const text = body.toString("latin1", at + 4, at + length);
    if (!text.endsWith("\n")) return null;
    lines.push(text.slice(0, -1));
    at += length;
  }
  const flush = lines.indexOf(null);
  if (flush < 1 || lines.lastIndexOf(null) !== flush || lines[lines.length - 1] !== "done") return null;
  const wants: string[] = [];
  for (const [i, line] of (lines.slice(0, flush) as string[]).entries()) {
    const words = line.split(" ");
    if (words[0] !== "want" || !SHA1.test(words[1] ?? "")) return null;
    if (i === 0) {
      const caps = words.slice(2);
      if (!caps.includes("side-band-64k") || !caps.includes("no-progress")) return null;
      if (!caps.every((c) => TAKEN.has(c) || /^agent=\S+$/.test(c))) return null;
    } else if (words.length !== 2) return null;
    wants.push(words[1]!);
  }
  const haves: string[] = [];
  for (const line of lines.slice(flush + 1, -1) as string[]) {
    const m = /^have ([0-9a-f]{40})$/.exec(line);
    if (!m) return null;
    haves.push(m[1]!);
  }
  return { wants, haves };
}

/** From `git config --list -z`: whether the config says nothing upload-pack would act on but allowAnySHA1InWant=true. */
export function uploadConfigModelled(listing: string): boolean {
  let anyWant = false;
  for (const entry of listing.split("\0")) {
    if (entry === "") continue;
    const nl = entry.indexOf("\n");
    if (nl < 0) return false;
    const key = entry.slice(0, nl);
    const value = entry.slice(nl + 1);
    if (key === "uploadpack.allowanysha1inwant") anyWant = value === "true";
    else if (/^(uploadpack|transfer|extensions|fetch|protocol)\./.test(key)) return false;
    else if (key === "core.bare" && value !== "true") return false;
    else if (key === "core.repositoryformatversion" && value !== "0") return false;
  }
  return anyWant;
}

export interface Commit {
  tree: string;
  parents: string[];
}

/** A commit's tree and parent lines; null: no tree line where git writes it. */
export function parseCommit(data: Buffer): Commit | null {
  const end = data.indexOf("\n\n");
  const head = data.toString("latin1", 0, end < 0 ? data.length : end).split("\n");
  const tree = /^tree ([0-9a-f]{40})$/.exec(head[0] ?? "")?.[1];
  if (!tree) return null;
  const parents: string[] = [];
  for (const line of head.slice(1)) {
    const m = /^parent ([0-9a-f]{40})$/.exec(line);
    if (!m) break;
    parents.push(m[1]!);
  }
  return { tree, parents };
}

interface Entry {
  kind: "tree" | "blob" | "gitlink";
  sha: string;
}

/** A tree's entries by name; null: one not read here. */
function parseTree(data: Buffer): Map<string, Entry> | null {
  const entries = new Map<string, Entry>();
  for (let at = 0; at < data.length;) {
    const sp = data.indexOf(0x20, at);
    const nul = data.indexOf(0, sp + 1);
    if (sp < 0 || nul < 0 || nul + 21 > data.length) return null;
    const mode = data.toString("latin1", at, sp);
    const kind = mode === "40000" ? "tree" : mode === "160000" ? "gitlink" : /^(100644|100755|120000|100664)$/.test(mode) ? "blob" : null;
    if (!kind) return null;
    entries.set(data.toString("latin1", sp + 1, nul), { kind, sha: data.toString("hex", nul + 1, nul + 21) });
    at = nul + 21;
  }
  return entries;
}

/** Thrown inside the walk when something is not modelled: upload-pack answers. */
class NotHere extends Error {
  readonly reason = "not-modelled";
}

/** A version 2 pack of `objects`, none deltified (the Run's pack writer, pack-file.ts). */
export function packOf(objects: GitObject[]): Buffer {
  return buildPack(
    objects.map((o) => ({ type: o.type, body: o.data })),
    "sha1",
  );
}

/** `data` in side-band-64k band 1 packets. */
function bandOne(data: Buffer): Buffer[] {
  const packets: Buffer[] = [];
  for (let at = 0; at < data.length; at += SIDE_BAND_DATA) {
    const chunk = data.subarray(at, at + SIDE_BAND_DATA);
    packets.push(Buffer.from((chunk.length + 5).toString(16).padStart(4, "0")), Buffer.from([1]), chunk);
  }
  return packets;
}

export class UploadPackInProcess {
  constructor(
    private readonly objects: ObjectReaders,
    /** Shared with the receive side (receive-setup.ts): one `git config` per config state. */
    private readonly listings = new ConfigListings(),
  ) {}

  /** upload-pack's answer to this request body (protocol v0), or null: upload-pack answers. */
  async answer(gitDir: string, body: Buffer): Promise<Buffer | null> {
    const request = parseFetchRequest(body);
    if (!request) return null;
    const listing = await this.listings.listing(gitDir);
    if (listing === null || !uploadConfigModelled(listing)) return null;
    const files = ["shallow", "objects/info/alternates", "info/grafts"].map((f) => pathExists(path.join(gitDir, f)));
    if ((await Promise.all(files)).some(Boolean)) return null;
    try {
      return await this.serve(gitDir, request);
    } catch (e) {
      if (e instanceof NotHere) return null;
      throw e;
    }
  }

  private async serve(gitDir: string, request: FetchRequest): Promise<Buffer> {
    const cache = new Map<string, Promise<GitObject | "missing" | null>>();
    const read = (sha: string): Promise<GitObject | "missing" | null> => {
      let p = cache.get(sha);
      if (!p) cache.set(sha, (p = this.objects.read(gitDir, sha)));
      return p;
    };
    const mustRead = async (sha: string, type: GitObject["type"]): Promise<GitObject> => {
      const o = await read(sha);
      if (!o || o === "missing" || o.type !== type) throw new NotHere();
      return o;
    };
    const commitOf = async (sha: string): Promise<Commit> => {
      const c = parseCommit((await mustRead(sha, "commit")).data);
      if (!c) throw new NotHere();
      return c;
    };

    // upload-pack reads the wants first: each must exist (allowAnySHA1InWant), here a commit.
    const wants = [...new Set(request.wants)];
    for (const w of wants) await commitOf(w);

    // get_common_commits: a have the repository has is common; a commit's parents are then known
    // common too (THEY_HAVE), and a commit already known adds nothing to the common list.
    const theyHave = new Set<string>();
    const common: string[] = [];
    const lines: Buffer[] = [];
    for (const have of request.haves) {
      const o = await read(have);
      if (o === null) throw new NotHere();
      if (o === "missing") continue;
      let knew = false;
      if (o.type === "commit") {
        const c = parseCommit(o.data);
        if (!c) throw new NotHere();
        knew = theyHave.has(have);
        theyHave.add(have);
        for (const p of c.parents) theyHave.add(p);
      }
      if (!knew) common.push(have);
      if (common.length === 1) lines.push(pktLine(`ACK ${have}\n`));
    }
    if (common.length === 0) lines.push(pktLine("NAK\n"));

    // The new commits: from each want down its line of single parents to a commit the client has.
    const fresh = new Map<string, Commit>();
    const order: string[] = [];
    for (const want of wants) {
      for (let sha = want; !theyHave.has(sha) && !fresh.has(sha);) {
        const c = await commitOf(sha);
        if (c.parents.length !== 1 || order.length >= MAX_NEW_COMMITS) throw new NotHere();
        fresh.set(sha, c);
        order.push(sha);
        sha = c.parents[0]!;
      }
    }

    const packed = new Map<string, GitObject>();
    let size = 0;
    const add = (sha: string, o: GitObject): void => {
      packed.set(sha, o);
      size += o.data.length;
      if (packed.size > MAX_OBJECTS || size > MAX_PACK) throw new NotHere();
    };
    for (const sha of order) add(sha, await mustRead(sha, "commit"));
    // Each tree against its parent's at the same path: what is the same there the client has or gets.
    const addTree = async (tree: string, base: string | null): Promise<void> => {
      if (tree === base || packed.has(tree)) return;
      const [o, b] = await Promise.all([mustRead(tree, "tree"), base ? mustRead(base, "tree") : null]);
      const entries = parseTree(o.data);
      const baseEntries = b ? parseTree(b.data) : new Map<string, Entry>();
      if (!entries || !baseEntries) throw new NotHere();
      add(tree, o);
      const blobs: string[] = [];
      const trees: [string, string | null][] = [];
      for (const [name, e] of entries) {
        const was = baseEntries.get(name);
        if (e.kind === "gitlink" || was?.sha === e.sha) continue;
        if (e.kind === "tree") trees.push([e.sha, was?.kind === "tree" ? was.sha : null]);
        else if (!packed.has(e.sha)) blobs.push(e.sha);
      }
      for (const [i, blob] of (await Promise.all(blobs.map((s) => mustRead(s, "blob")))).entries()) if (!packed.has(blobs[i]!)) add(blobs[i]!, blob);
      for (const [t, was] of trees) await addTree(t, was);
    };
    for (const sha of order) {
      const c = fresh.get(sha)!;
      const parent = c.parents[0]!;
      await addTree(c.tree, (fresh.get(parent) ?? (await commitOf(parent))).tree);
    }

    const pack = packOf([...packed.values()]);
    return Buffer.concat([...lines, ...bandOne(pack), Buffer.from("0000")]);
  }
}
