/**
 * An object read from one of the clone's packs (gitformat-pack(5)), in this process (ADR 0501):
 * its offset from the pack's `.idx` (version 2: a 256-entry fan-out table, the sorted names, their
 * CRCs, their offsets), its entry read with pack-entries.ts's reader from the part of the `.pack`
 * where it is, deltas applied down their chain (OFS_DELTA in the same pack, REF_DELTA to an object
 * of the same pack: what `index-pack --fix-thin` writes), and its id hashed from what it holds.
 * A `git clone` keeps its pack, so a Run's first base commit and its trees are packed: the small
 * fetches' proof and the Landing's base overlap read them here instead of leaving it to git.
 *
 * Null when not certain: no such object in a readable index, an index that is not version 2, an
 * offset past 2 GiB, a tag, a chain deeper than MAX_DEPTH, anything that does not read or hash to
 * its id. The calls are synchronous: a few small reads, where `fs/promises` would cost a trip to
 * the thread pool each.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { looseObjectId } from "./loose-object-file";
import { applyDelta, OFS_DELTA, readEntry, TYPES } from "./pack-entries";

const SHA1 = /^[0-9a-f]{40}$/;
const IDX_MAGIC = Buffer.from([0xff, 0x74, 0x4f, 0x63]);
const HEADER = 8;
const FANOUT = 256 * 4;
const TRAILER = 20;
/** git's default pack.depth is 50 (`gc --aggressive` 250): a deeper chain is git's to read. */
const MAX_DEPTH = 64;
/** No object larger than this is read here (pack-entries.ts takes none larger). */
const MAX_OBJECT = 16 * 1024 * 1024;
/** What is read of a pack at an entry first: the header and zlib stream of most commits and trees. */
const FIRST_READ = 64 * 1024;

export interface PackedRead {
  type: "commit" | "tree" | "blob";
  body: Buffer;
}

function readAt(fd: number, length: number, position: number): Buffer | null {
  const buf = Buffer.alloc(length);
  return readSync(fd, buf, 0, length, position) === length ? buf : null;
}

/**
 * Where a version-2 index lists `want` (its pack offset), -1 when it does not, null when it does
 * not read as one: its fan-out and a binary search of the names, read by parts (a large clone's
 * index is megabytes). An offset past 2 GiB (the large-offset table) reads as null.
 */
export function indexOffset(idxPath: string, want: Buffer): number | null {
  let fd: number;
  try {
    fd = openSync(idxPath, "r");
  } catch {
    return null;
  }
  try {
    const head = readAt(fd, HEADER + FANOUT, 0);
    if (!head || !head.subarray(0, 4).equals(IDX_MAGIC) || head.readUInt32BE(4) !== 2) return null;
    const count = head.readUInt32BE(HEADER + 255 * 4);
    const first = want[0]!;
    let lo = first === 0 ? 0 : head.readUInt32BE(HEADER + (first - 1) * 4);
    let hi = head.readUInt32BE(HEADER + first * 4);
    if (lo > hi || hi > count) return null;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const name = readAt(fd, 20, HEADER + FANOUT + mid * 20);
      if (!name) return null;
      const cmp = Buffer.compare(name, want);
      if (cmp < 0) lo = mid + 1;
      else if (cmp > 0) hi = mid;
      else {
        // After the names, a CRC per object, then a 4-byte offset per object.
        const offset = readAt(fd, 4, HEADER + FANOUT + count * 24 + mid * 4);
        if (!offset) return null;
        const at = offset.readUInt32BE(0);
        return at & 0x80000000 ? null : at;
      }
    }
    return -1;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The object whose entry starts at `offset` of the open pack, deltas applied; null when it does not read here. */
function objectAt(fd: number, end: number, idxPath: string, offset: number, depth: number): { type: PackedRead["type"]; data: Buffer } | null {
  if (depth > MAX_DEPTH || offset < 12 || offset >= end) return null;
  // Most entries fit the first read; a larger one is read again whole (its size is then known).
  let window = readAt(fd, Math.min(end - offset, FIRST_READ), offset);
  let read = window && readEntry(window, 0, window.length, offset);
  if (!read && window && window.length < end - offset) {
    window = readAt(fd, Math.min(end - offset, MAX_OBJECT + (MAX_OBJECT >>> 10) + 64), offset);
    read = window && readEntry(window, 0, window.length, offset);
  }
  if (!read) return null;
  const { entry } = read;
  if (entry.base === undefined) return { type: TYPES[entry.kind as keyof typeof TYPES], data: entry.data };
  let baseAt: number | null;
  if (entry.kind === OFS_DELTA) baseAt = entry.base as number;
  else {
    baseAt = indexOffset(idxPath, Buffer.from(entry.base as string, "hex"));
    if (baseAt === null || baseAt < 0) return null;
  }
  const base = objectAt(fd, end, idxPath, baseAt, depth + 1);
  const data = base && applyDelta(base.data, entry.data);
  return base && data ? { type: base.type, data } : null;
}

/** The object `id` from the packs in `packDir` (a store's `objects/pack`), its id checked; null when not read here. */
export function readPacked(packDir: string, id: string): PackedRead | null {
  if (!SHA1.test(id)) return null;
  let names: string[];
  try {
    names = readdirSync(packDir);
  } catch {
    return null;
  }
  const want = Buffer.from(id, "hex");
  for (const name of names) {
    if (!name.endsWith(".idx")) continue;
    const idxPath = join(packDir, name);
    const offset = indexOffset(idxPath, want);
    if (offset === null || offset < 0) continue;
    let fd: number;
    try {
      fd = openSync(join(packDir, `${name.slice(0, -".idx".length)}.pack`), "r");
    } catch {
      return null;
    }
    try {
      const found = objectAt(fd, fstatSync(fd).size - TRAILER, idxPath, offset, 0);
      return found && looseObjectId("sha1", found.type, found.data) === id ? { type: found.type, body: found.data } : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
  return null;
}
