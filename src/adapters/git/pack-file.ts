/**
 * A pack (gitformat-pack(5), version 2) of whole objects, no deltas: "PACK", the version, the
 * object count, each object as its type-and-size header and its zlib-deflated body, then the
 * hash of everything before it.
 */
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import type { ObjectType } from "./made-objects";

/** What a pack can hold whole: the objects this process makes, and an annotated tag (the sandbox sends those). */
export type PackObjectType = ObjectType | "tag";

const TYPE_CODE: Record<PackObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

function objectHeader(type: PackObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (TYPE_CODE[type] << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

export function buildPack(objects: readonly { type: PackObjectType; body: Buffer }[], algorithm: "sha1" | "sha256"): Buffer {
  const head = Buffer.alloc(12);
  head.write("PACK", 0, "latin1");
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(objects.length, 8);
  const parts: Buffer[] = [head];
  for (const o of objects) parts.push(objectHeader(o.type, o.body.length), deflateSync(o.body));
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash(algorithm).update(body).digest()]);
}
