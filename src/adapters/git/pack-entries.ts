/**
 * The objects of a small pack (gitformat-pack(5), version 2 or 3), read in this process: a push
 * the sandbox takes (ADR 0491), a fetch the Run takes (ADR 0501): the header, each entry's type-and-size header and its zlib stream, inflated to
 * exactly the size it says and ending where the next entry starts, deltas (OFS_DELTA to an earlier
 * entry, REF_DELTA to an object of the pack or, in a thin pack, of the repository) applied, the
 * trailer the SHA-1 of every byte before it and the pack's last bytes, and every object's id
 * hashed from what it holds. Anything that does not read so, or that index-pack would take in a way
 * this does not model (a tag, the same object twice, an object larger than MAX_OBJECT), is null:
 * the caller leaves the pack to `git index-pack`, so whatever git would refuse, git refuses.
 */
import { createHash } from "node:crypto";
import { inflateSync } from "node:zlib";
import { looseObjectId } from "./loose-object-file";

/** An object this takes from a pack: whole, with its id. A tag is left to index-pack. */
export interface PackedObject {
  id: string;
  type: "commit" | "tree" | "blob";
  data: Buffer;
}

/** An object of the repository a thin pack's delta names as its base; null: not read here. */
export type BaseReader = (id: string) => Promise<{ type: string; data: Buffer } | null>;

export const TYPES = { 1: "commit", 2: "tree", 3: "blob" } as const;
export const OFS_DELTA = 6;
const REF_DELTA = 7;
/** No object larger than this is taken here (the sandbox's object-reader.ts reads no larger base either). */
const MAX_OBJECT = 16 * 1024 * 1024;
const TRAILER = 20;

export interface Entry {
  at: number;
  kind: number;
  data: Buffer;
  /** A delta's base: an earlier entry's offset (OFS_DELTA) or an object id (REF_DELTA). */
  base?: number | string;
}

/** A varint of the pack's own kind: 7 bits a byte, low first (a delta's sizes); null past `end` or too long. */
function deltaSize(delta: Buffer, at: number): { value: number; at: number } | null {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= delta.length) return null;
    const byte = delta[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (!(byte & 0x80)) return { value, at };
  }
  return null;
}

/** A delta (gitformat-pack(5), "Deltified representation") applied to its base; null when it does not apply exactly. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer | null {
  const source = deltaSize(delta, 0);
  const target = source && deltaSize(delta, source.at);
  if (!source || !target || source.value !== base.length || target.value > MAX_OBJECT) return null;
  const out = Buffer.alloc(target.value);
  let written = 0;
  let at = target.at;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += (delta[at++] ?? NaN) * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) size += (delta[at++] ?? NaN) * 2 ** (8 * bit);
      if (size === 0) size = 0x10000;
      if (!Number.isFinite(offset + size) || offset + size > base.length || written + size > out.length) return null;
      base.copy(out, written, offset, offset + size);
      written += size;
    } else if (op !== 0) {
      if (at + op > delta.length || written + op > out.length) return null;
      delta.copy(out, written, at, at + op);
      written += op;
      at += op;
    } else {
      return null;
    }
  }
  return written === out.length ? out : null;
}

/**
 * The entry at `at`: its header and its inflated data, and where the next one starts; null when it
 * does not read. `origin`: where `pack` starts in the whole pack file (a part of it read from disk,
 * pack-read.ts), so an OFS_DELTA's base is an offset in the file.
 */
export function readEntry(pack: Buffer, at: number, end: number, origin = 0): { entry: Entry; next: number } | null {
  if (at >= end) return null;
  const start = at;
  let byte = pack[at++]!;
  const kind = (byte >> 4) & 7;
  let size = byte & 0x0f;
  for (let shift = 4; byte & 0x80; shift += 7) {
    if (at >= end || shift > 28) return null;
    byte = pack[at++]!;
    size += (byte & 0x7f) * 2 ** shift;
  }
  if (size > MAX_OBJECT) return null;
  let base: number | string | undefined;
  if (kind === OFS_DELTA) {
    byte = pack[at++] ?? 0x80;
    let back = byte & 0x7f;
    for (let n = 0; byte & 0x80; n++) {
      if (at >= end || n > 4) return null;
      byte = pack[at++]!;
      back = (back + 1) * 128 + (byte & 0x7f);
    }
    if (back <= 0 || back > origin + start) return null;
    base = origin + start - back;
  } else if (kind === REF_DELTA) {
    if (at + 20 > end) return null;
    base = pack.toString("hex", at, at + 20);
    at += 20;
  } else if (!(kind in TYPES)) {
    // A tag (4) is taken by index-pack; 0 and 5 are no type at all.
    return null;
  }
  if (at >= end) return null;
  try {
    const { buffer, engine } = inflateSync(pack.subarray(at, end), { info: true, maxOutputLength: Math.max(1, size) }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    if (buffer.length !== size) return null;
    return { entry: { at: start, kind, data: buffer, base }, next: at + engine.bytesWritten };
  } catch {
    return null;
  }
}

function whole(type: PackedObject["type"], data: Buffer): PackedObject {
  return { id: looseObjectId("sha1", type, data), type, data };
}

/**
 * Every object of the pack, deltas applied, in the pack's order; null when the pack does not read
 * exactly, a base cannot be had, or an object is one this leaves to index-pack.
 */
export async function packObjects(pack: Buffer, readBase: BaseReader): Promise<PackedObject[] | null> {
  if (pack.length < 12 + TRAILER || pack.toString("latin1", 0, 4) !== "PACK") return null;
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) return null;
  const end = pack.length - TRAILER;
  if (!createHash("sha1").update(pack.subarray(0, end)).digest().equals(pack.subarray(end))) return null;
  const count = pack.readUInt32BE(8);
  const entries: Entry[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    const read = readEntry(pack, at, end);
    if (!read) return null;
    entries.push(read.entry);
    at = read.next;
  }
  if (at !== end) return null;

  const byOffset = new Map<number, PackedObject>();
  const byId = new Map<string, PackedObject>();
  const keep = (entry: Entry, object: PackedObject): boolean => {
    if (byId.has(object.id)) return false;
    byOffset.set(entry.at, object);
    byId.set(object.id, object);
    return true;
  };
  let waiting = entries;
  // Deltas in rounds: a REF_DELTA's base may come later in the pack, or be the result of another delta.
  while (waiting.length > 0) {
    const still: Entry[] = [];
    for (const entry of waiting) {
      if (entry.base === undefined) {
        if (!keep(entry, whole(TYPES[entry.kind as keyof typeof TYPES], entry.data))) return null;
        continue;
      }
      const base = typeof entry.base === "number" ? byOffset.get(entry.base) : byId.get(entry.base);
      if (!base) {
        still.push(entry);
        continue;
      }
      const data = applyDelta(base.data, entry.data);
      if (!data || !keep(entry, whole(base.type, data))) return null;
    }
    if (still.length === waiting.length) {
      // No progress: what is left has its base outside the pack (a thin pack), or none at all.
      const outside = still.find((e) => typeof e.base === "string");
      if (!outside) return null;
      const read = await readBase(outside.base as string);
      if (!read || !(read.type === "commit" || read.type === "tree" || read.type === "blob")) return null;
      const type = read.type as PackedObject["type"];
      if (looseObjectId("sha1", type, read.data) !== outside.base) return null;
      const data = applyDelta(read.data, outside.data);
      if (!data || !keep(outside, whole(type, data))) return null;
      still.splice(still.indexOf(outside), 1);
    }
    waiting = still;
  }
  return entries.map((e) => byOffset.get(e.at)!);
}
