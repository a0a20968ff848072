/**
 * A push taken in this process rather than by `git receive-pack --stateless-rpc` and the three
 * processes it starts (unpack-objects or index-pack, a `rev-list` connectivity walk, and
 * `core.alternateRefsCommand`): ADR 0482. A pack of fewer than UNPACK_LIMIT objects is written
 * here as loose objects where every check is certain (unpack-in-process.ts, ADR 0491); any other
 * by one git process, `git index-pack --stdin --fix-thin --check-self-contained-and-connected`.
 * Either dies when an object of the pack links to one neither in the pack nor in the repository;
 * in a repository whose objects are all connected (objects-connected.ts) that is git's
 * connectivity check. The refs are written as git
 * writes them, with receive-pack's leases (loose-ref-transaction.ts), and the answer is
 * receive-pack's report-status byte for byte (test/integration/sandbox/receive-in-process.test.ts).
 *
 * Only a push every command of which receive-pack would take is answered here. Anything else is
 * receive-pack's, given the same body, with nothing changed but the pack's objects written (they
 * are connected): a capability or a config not modelled, shallow lines, a hidden or funny ref
 * name, the current branch deleted, the rules' hook with work to do, a lease that does not hold,
 * a pack index-pack refuses, a new object missing or not a commit for a branch, a ref git would
 * lock or write otherwise, a repository not known connected, or a pack of UNPACK_LIMIT objects or
 * more without `quiet` (receive-pack's index-pack would show its progress).
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import type { CommitLookups } from "./commit-lookup";
import { git } from "./git";
import { applyRefChanges } from "./loose-ref-transaction";
import { knownConnected } from "./objects-connected";
import type { ObjectReaders } from "./object-reader";
import type { PushRequest } from "./push-commands";
import { isHidden, isRefName } from "./receive-pack-advertisement";
import type { ReceiveSetup } from "./receive-setup";
import { pktLine } from "./smart-http";
import { unpackInProcess } from "./unpack-in-process";

/** What receive-pack does with the capabilities a client may send; any other: not modelled. */
const KNOWN = new Set(["report-status", "report-status-v2", "side-band-64k", "quiet", "atomic", "ofs-delta", "delete-refs", "object-format=sha1"]);
/** transfer.unpackLimit's default: from this many objects receive-pack keeps the pack (index-pack), below it unpacks. */
export const UNPACK_LIMIT = 100;
/** A larger pack is left to receive-pack, which streams it: this reads the pack into memory. */
const MAX_PACK = 32 * 1024 * 1024;
/** sideband.c: a side-band-64k packet carries at most LARGE_PACKET_MAX (65520) bytes, its header and band byte included. */
const SIDE_BAND_DATA = 65520 - 5;

export interface ReceiveInput {
  gitDir: string;
  /** The spooled (inflated) request body. */
  body: { path: string; size: number };
  request: PushRequest;
  setup: ReceiveSetup | null;
  /** The rules' pre-receive hook has work in this push (push-rules.ts). */
  hook: boolean;
  commits: CommitLookups;
  /** Whole objects of the repository: a thin pack's delta bases (unpack-in-process.ts). */
  objects: ObjectReaders;
}

/**
 * `answer`: the push is done and this is receive-pack's answer. `packChecked`: not taken here,
 * but index-pack took its pack whole (so receive-pack, given it, brings only connected objects).
 */
export type ReceiveOutcome = { answer: Buffer } | { answer: null; packChecked: boolean };

const NOT_HERE: ReceiveOutcome = { answer: null, packChecked: false };

function capabilitiesModelled(caps: string[]): boolean {
  const known = caps.every((c) => KNOWN.has(c) || c.startsWith("agent="));
  return known && (caps.includes("report-status") || caps.includes("report-status-v2"));
}

/** The branch HEAD names (`ref: refs/heads/x`); null: HEAD is something else. */
async function headBranch(gitDir: string): Promise<string | null> {
  const text = await fsp.readFile(path.join(gitDir, "HEAD"), "utf8").catch(() => "");
  return /^ref: (refs\/\S+)\n$/.exec(text)?.[1] ?? null;
}

/** Whether the request's commands are ones receive-pack takes without a word: each ref one git iterates, not hidden, not the current branch deleted. */
async function commandsModelled(gitDir: string, request: PushRequest, setup: ReceiveSetup): Promise<boolean> {
  const head = request.commands.some((c) => c.new === null) ? await headBranch(gitDir) : "";
  if (head === null) return false;
  return request.commands.every((c) => isRefName(c.ref) && !isHidden(c.ref, setup.hidden) && !(c.new === null && c.ref === head));
}

/** The pack after the commands, read whole; null: not one this models (see the file's comment). */
async function readPack(input: ReceiveInput): Promise<Buffer | null> {
  const length = input.body.size - input.request.packAt;
  if (length < 32 || length > MAX_PACK) return null;
  const handle = await fsp.open(input.body.path, "r");
  try {
    const pack = Buffer.alloc(length);
    const { bytesRead } = await handle.read(pack, 0, length, input.request.packAt);
    return bytesRead === length ? pack : null;
  } finally {
    await handle.close();
  }
}

/** The pack's object count from its header ("PACK", version 2 or 3); null: not a pack header. */
function packEntries(pack: Buffer): number | null {
  if (pack.toString("latin1", 0, 4) !== "PACK") return null;
  const version = pack.readUInt32BE(4);
  return version === 2 || version === 3 ? pack.readUInt32BE(8) : null;
}

/** An empty pack (what `git push` sends for commits the remote has) written by no process: its header and that header's SHA-1. */
function isEmptyPack(pack: Buffer): boolean {
  return pack.length === 32 && createHash("sha1").update(pack.subarray(0, 12)).digest().equals(pack.subarray(12));
}

/** index-pack takes the pack, every link of its objects present: 0 self-contained, 1 linking to objects already here. */
async function indexPack(gitDir: string, pack: Buffer): Promise<boolean> {
  const r = await git(["index-pack", "--stdin", "--fix-thin", "--check-self-contained-and-connected"], { gitDir, input: pack });
  return (r.code === 0 || r.code === 1) && /^pack\t[0-9a-f]{40}\n$/.test(r.stdout);
}

/**
 * The pack's objects written, every link of theirs present: below UNPACK_LIMIT objects (where
 * receive-pack would unpack them loose) by this process when it is certain (ADR 0491), else by
 * index-pack as before.
 */
async function packTaken(input: ReceiveInput, pack: Buffer, entries: number): Promise<boolean> {
  if (entries < UNPACK_LIMIT && (await unpackInProcess({ gitDir: input.gitDir, pack, commits: input.commits, objects: input.objects }))) return true;
  return indexPack(input.gitDir, pack);
}

/** Each new object present, and a commit for a branch; each deleted ref's object present (receive-pack warns otherwise). */
async function objectsPresent(input: ReceiveInput): Promise<boolean> {
  const checks = input.request.commands.map(async (c) => {
    const found = await input.commits.object(input.gitDir, c.new ?? c.old!);
    if (!found || found.type === "") return false;
    return c.new === null || !c.ref.startsWith("refs/heads/") || found.type === "commit";
  });
  return (await Promise.all(checks)).every(Boolean);
}

/** receive-pack's report-status for a push whose every command went through, in side-band-64k's band 1 when asked. */
export function reportAllOk(request: PushRequest): Buffer {
  const report = Buffer.concat([pktLine("unpack ok\n"), ...request.commands.map((c) => pktLine(`ok ${c.ref}\n`)), Buffer.from("0000")]);
  if (!request.capabilities.includes("side-band-64k")) return report;
  const packets: Buffer[] = [];
  for (let at = 0; at < report.length; at += SIDE_BAND_DATA) {
    const data = report.subarray(at, at + SIDE_BAND_DATA);
    packets.push(Buffer.from((data.length + 5).toString(16).padStart(4, "0")), Buffer.from([1]), data);
  }
  return Buffer.concat([...packets, Buffer.from("0000")]);
}

export async function receiveInProcess(input: ReceiveInput): Promise<ReceiveOutcome> {
  const { gitDir, request, setup } = input;
  if (!setup || input.hook || request.shallow || !capabilitiesModelled(request.capabilities)) return NOT_HERE;
  if (!input.commits.batched(gitDir) || !(await knownConnected(gitDir)) || !(await commandsModelled(gitDir, request, setup))) return NOT_HERE;
  let packChecked = false;
  if (request.commands.some((c) => c.new !== null)) {
    const pack = await readPack(input);
    const entries = pack && packEntries(pack);
    if (!pack || entries === null) return NOT_HERE;
    if (entries >= UNPACK_LIMIT && !request.capabilities.includes("quiet")) return NOT_HERE;
    if (entries === 0 ? !isEmptyPack(pack) : !(await packTaken(input, pack, entries))) return NOT_HERE;
    packChecked = true;
  } else if (input.body.size !== request.packAt) {
    return NOT_HERE;
  }
  // Asked again after the objects were looked at: a receive-pack that took an unchecked pack
  // meanwhile removed the mark before its objects could be seen, so none of them is relied on here.
  const taken = (await objectsPresent(input)) && (await knownConnected(gitDir)) && (await applyRefChanges(gitDir, request.commands)) === "done";
  return taken ? { answer: reportAllOk(request) } : { answer: null, packChecked };
}
