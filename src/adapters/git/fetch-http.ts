/**
 * A fetch spoken from the Run's process over smart HTTP (ADR 0476; gitprotocol-http(5), "Smart
 * Service git-upload-pack"; gitprotocol-pack(5), "Packfile Negotiation"; protocol v0,
 * stateless-rpc): one `POST git-upload-pack` with `want` lines, a flush, `have` lines and `done`;
 * the answer's ACK/NAK, then the pack on side-band 1. A pack under fetch.unpackLimit whose objects
 * this process proves exact and connected is written by it as loose objects (unpack-fetched.ts,
 * ADR 0501). Any other pack is written as git's fetch writes it (`unpack-objects` under
 * fetch.unpackLimit, else `index-pack --fix-thin --keep`) in the Run's private directory, moved
 * into the clone (ADR 0473), and checked connected in the clone before any ref names it. Whatever
 * this cannot do throws UseGit before anything is written: git fetches.
 */
import { mkdir, readdir, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Failure } from "../../core/errors";
import { adoptObjects } from "./adopt-fetched";
import { gitPathExists, readGitText } from "./git-dir-files";
import { cloneStore } from "./clone-store";
import type { GitOutput } from "./git-runner";
import { FLUSH, MalformedPkt, demuxSideBand, pktLine, pktText, readPktLines } from "./pkt-line";
import type { RepoContext } from "./repo-context";
import type { SmartHttpClient } from "./smart-http-client";
import { GitHttpFailure, UseGit } from "./smart-http-client";
import { unpackFetched } from "./unpack-fetched";

/** git's default fetch.unpackLimit: a pack of fewer objects is unpacked loose, a larger one kept whole. */
export const UNPACK_LIMIT = 100;
/** At most this many `have` lines: the Run's few tracking refs fit, a clone with thousands is not walked. */
const MAX_HAVES = 32;
const SHA1 = /^[0-9a-f]{40}$/;

/** The remote's refs from upload-pack's v0 advertisement, `^{}` lines left out. */
export interface UploadPackRefs {
  refs: Map<string, string>;
  caps: Map<string, string>;
}

/** An HTTP status other than 200 is git's to meet, with its own words for it (ADR 0476). */
async function statusToGit<T>(talk: () => Promise<T>): Promise<T> {
  try {
    return await talk();
  } catch (e) {
    if (e instanceof GitHttpFailure && e.status !== null) throw new UseGit(`HTTP ${e.status}`);
    throw e;
  }
}

/** `GET info/refs?service=git-upload-pack`: the remote's refs, no process. */
export async function uploadPackRefs(client: SmartHttpClient): Promise<UploadPackRefs> {
  const adv = await statusToGit(() => client.advertise("upload-pack"));
  return { refs: new Map(adv.refs.filter(([ref]) => !ref.endsWith("^{}"))), caps: adv.caps };
}

/**
 * Throws UseGit unless this process can fetch into the clone: a SHA-1 clone that is not shallow
 * (a shallow boundary is git's to keep), and, when the advertisement is at hand, a SHA-1
 * upload-pack that offers side-band-64k.
 */
export async function assertFetchable(ctx: RepoContext, adv?: UploadPackRefs): Promise<void> {
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1") throw new UseGit("a clone that is not SHA-1");
  if (gitPathExists(join(store.commonDir, "shallow"))) throw new UseGit("a shallow clone");
  if (!adv) return;
  const format = adv.caps.get("object-format");
  if (format !== undefined && format !== "sha1") throw new UseGit(`the remote's object format is ${format}`);
  if (!adv.caps.has("side-band-64k")) throw new UseGit("upload-pack offers no side-band-64k");
}

/** Whether the clone has `sha` as a loose object (no process; a packed one reads as absent). */
export async function hasLooseObject(ctx: RepoContext, sha: string): Promise<boolean> {
  if (!SHA1.test(sha)) return false;
  const { dir } = await cloneStore(ctx.git, ctx.root);
  return gitPathExists(join(dir, sha.slice(0, 2), sha.slice(2)));
}

/** A ref's value read from the clone's files (loose, else packed-refs), or null. */
export async function refFileValue(ctx: RepoContext, ref: string): Promise<string | null> {
  if (!ref.startsWith("refs/") || ref.split("/").some((p) => p === "" || p === "." || p === "..")) return null;
  const { commonDir } = await cloneStore(ctx.git, ctx.root);
  const loose = readGitText(join(commonDir, ref))?.trim();
  if (loose !== undefined) return SHA1.test(loose) ? loose : null;
  return packedRefs(commonDir).get(ref) ?? null;
}

/** Whether the clone has `ref` at all, as a loose file (whatever it holds) or in packed-refs. Unsure names say yes. */
export async function refFileExists(ctx: RepoContext, ref: string): Promise<boolean> {
  if (!ref.startsWith("refs/") || ref.split("/").some((p) => p === "" || p === "." || p === "..")) return true;
  const { commonDir } = await cloneStore(ctx.git, ctx.root);
  return gitPathExists(join(commonDir, ref)) || packedRefs(commonDir).has(ref);
}

function packedRefs(commonDir: string): Map<string, string> {
  const text = readGitText(join(commonDir, "packed-refs")) ?? "";
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{40}) (refs\/\S+)$/.exec(line);
    if (m) out.set(m[2]!, m[1]!);
  }
  return out;
}

/**
 * Good `have`s for a fetch, read from files (no process): the values of the clone's tracking refs
 * of `remote` (loose first, then packed), at most MAX_HAVES. A ref is set only once its objects
 * are whole, so each is an object the clone has with its history.
 */
export async function trackingTips(ctx: RepoContext): Promise<string[]> {
  const { commonDir } = await cloneStore(ctx.git, ctx.root);
  const top = join(commonDir, "refs", "remotes", ctx.remote);
  const tips: string[] = [];
  const loose = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (tips.length >= MAX_HAVES) return;
      if (entry.isDirectory()) await walk(join(dir, entry.name));
      else if (!entry.name.endsWith(".lock")) {
        const sha = (readGitText(join(dir, entry.name)) ?? "").trim();
        loose.add(join(dir, entry.name));
        if (SHA1.test(sha)) tips.push(sha);
      }
    }
  };
  await walk(top);
  // A packed value a loose file overrides is no ref any more: its objects may be gone.
  for (const [ref, sha] of packedRefs(commonDir)) {
    if (tips.length < MAX_HAVES && ref.startsWith(`refs/remotes/${ctx.remote}/`) && !loose.has(join(commonDir, ref))) tips.push(sha);
  }
  return tips;
}

/** The capabilities asked for: only what reading and writing the pack here needs. */
function wantCaps(caps: Map<string, string> | null): string[] {
  const offered = (c: string) => caps === null || caps.has(c);
  return ["side-band-64k", ...["ofs-delta", "thin-pack", "no-progress"].filter(offered), ...(offered("agent") ? ["agent=ticket-runner"] : [])];
}

/** The request: wants (capabilities on the first), a flush, haves, `done` (no flush before it: stateless upload-pack would end there). */
export function uploadRequest(wants: string[], haves: string[], caps: string[]): Buffer {
  return Buffer.concat([
    ...wants.map((w, i) => pktLine(i === 0 ? `want ${w} ${caps.join(" ")}\n` : `want ${w}\n`)),
    FLUSH,
    ...haves.map((h) => pktLine(`have ${h}\n`)),
    pktLine("done\n"),
  ]);
}

/** The pack of upload-pack's answer, or "not-our-ref" (a want no ref reaches any more: it moved). */
export function readUploadAnswer(answer: Buffer, redact: (t: string) => string, url: string): Buffer | "not-our-ref" {
  const refused = (said: string): "not-our-ref" => {
    if (/not our ref/.test(said)) return "not-our-ref";
    throw new Failure("git", redact(`The remote ${url} refused the fetch: ${said.trim().slice(0, 300)}`));
  };
  let lines;
  try {
    lines = readPktLines(answer);
  } catch (e) {
    if (e instanceof MalformedPkt) throw new UseGit(`an upload-pack answer that does not read: ${e.message}`);
    throw e;
  }
  let at = 0;
  for (; at < lines.length; at++) {
    const line = lines[at];
    if (line === null || line === undefined) break;
    const text = pktText(line);
    if (text === "NAK" || /^ACK [0-9a-f]{40}/.test(text)) continue;
    if (text.startsWith("ERR ")) return refused(text.slice(4));
    break;
  }
  let bands;
  try {
    bands = demuxSideBand(lines.slice(at));
  } catch (e) {
    if (e instanceof MalformedPkt) throw new UseGit(`an upload-pack answer without side-band: ${e.message}`);
    throw e;
  }
  if (bands.fatal) return refused(bands.fatal);
  const pack = bands.data;
  if (pack.length < 32 || pack.toString("latin1", 0, 4) !== "PACK") throw new UseGit("an upload-pack answer with no pack");
  return pack;
}

/** What a fetch brought, once its objects are in the clone and connected: `release` once the ref naming them is set. */
export interface Fetched {
  release: () => Promise<void>;
}

export interface FetchAsk {
  wants: string[];
  haves: string[];
  /** The advertisement's capabilities; null when none was read (the wants come from an earlier listing). */
  caps: Map<string, string> | null;
  /**
   * Commits whose whole history the clone has: values of its refs (a ref is set only once its
   * history is whole). A small pack is proved connected against these in this process; a have
   * that is merely present (a loose object a refused fetch may have left) is not one.
   */
  whole: string[];
}

/**
 * Fetches the objects of `wants` into the clone: one POST; a small pack proved exact and connected
 * here is written loose into the clone (ADR 0501); otherwise the pack is written in the private
 * directory, moved into the clone, then `rev-list --objects` proves every want's history whole
 * before the caller sets a ref. "not-our-ref" when the remote no longer has a want on any ref.
 */
export async function fetchObjects(ctx: RepoContext, client: SmartHttpClient, ask: FetchAsk): Promise<Fetched | "not-our-ref"> {
  const wants = [...new Set(ask.wants)];
  const haves = [...new Set(ask.haves)].filter((h) => SHA1.test(h) && !wants.includes(h)).slice(0, MAX_HAVES);
  const answer = await statusToGit(() => client.rpc("upload-pack", uploadRequest(wants, haves, wantCaps(ask.caps))));
  const pack = readUploadAnswer(answer, (t) => ctx.git.redact(t), client.url);
  if (pack === "not-our-ref") return pack;
  // No git process when the proof holds here; else nothing was written and git unpacks and checks as before.
  if (pack.readUInt32BE(8) < UNPACK_LIMIT && (await unpackFetched(ctx, pack, wants, ask.whole))) return { release: async () => undefined };
  const kept = await writePack(ctx, pack);
  const store = await cloneStore(ctx.git, ctx.root);
  const privateDir = await ctx.net.dir();
  const keeps = kept ? [join(store.dir, "pack", `pack-${kept}.keep`), join(privateDir, "objects", "pack", `pack-${kept}.keep`)] : [];
  // As git's fetch: the pack is kept (no repack drops it) until a ref names what it holds.
  if (kept) {
    await mkdir(join(store.dir, "pack"), { recursive: true });
    await writeFile(keeps[0]!, `fetch-http ${process.pid}\n`);
  }
  const release = async () => {
    for (const k of keeps) await unlink(k).catch(() => undefined);
  };
  try {
    await adoptObjects(join(privateDir, "objects"), store.dir);
    await assertConnected(ctx, client.url, wants);
  } catch (e) {
    await release();
    throw e;
  }
  return { release };
}

/** Writes the pack in the private directory as git's fetch would; the pack's name when it was kept whole. */
async function writePack(ctx: RepoContext, pack: Buffer): Promise<string | null> {
  const count = pack.readUInt32BE(8);
  if (count === 0) return null;
  if (count < UNPACK_LIMIT) {
    const res = await ctx.net.offline(["unpack-objects", "-q"], { input: pack });
    if (res.code !== 0) throw ctx.git.failure(["unpack-objects", "-q"], res);
    return null;
  }
  const args = ["index-pack", "--stdin", "--fix-thin", `--keep=fetch-http ${process.pid}`];
  const res = await ctx.net.offline(args, { input: pack });
  if (res.code !== 0) throw ctx.git.failure(args, res);
  const name = /^(?:keep|pack)\t([0-9a-f]{40})$/m.exec(res.stdout.toString("utf8"))?.[1];
  if (!name) throw new Failure("git", `git index-pack kept a pack without saying its name: ${ctx.git.redact(res.stdout.toString("utf8").slice(0, 200))}`);
  return name;
}

/**
 * git's fetch's connectivity check (connected.c) without `--alternate-refs` (the clone has no
 * alternates), run in the main checkout: exit 0 when every object the wants reach that no ref of
 * the clone reaches is there. `--single-worktree` (before `--all`): the refs and this checkout's
 * own HEAD, not every linked worktree's HEAD (ADR 0486). A neighbour Lane's `git worktree add`
 * writes its HEAD as the null id before its checkout, and `--all` dies on that ("bad object
 * worktrees/<id>/HEAD"). Fewer tips to stop at only makes the walk longer: nothing is taken as
 * present without being proved so.
 */
export function connectivityWalk(ctx: RepoContext, wants: string[]): Promise<GitOutput> {
  const args = ["rev-list", "--objects", "--quiet", "--stdin", "--not", "--single-worktree", "--all"];
  return ctx.git.raw(args, { cwd: ctx.root, input: `${wants.join("\n")}\n` });
}

async function assertConnected(ctx: RepoContext, url: string, wants: string[]): Promise<void> {
  const res = await connectivityWalk(ctx, wants);
  if (res.code === 0) return;
  const said = ctx.git.redact(res.stderr.trim().slice(0, 300));
  throw new Failure(
    "git",
    ctx.git.redact(
      `The remote ${url} sent a pack that does not hold every object ${wants.join(", ")} needs (${said}); no ref was set. Run again; if it repeats, check the remote's repository.`,
    ),
  );
}
