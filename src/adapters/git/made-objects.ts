/**
 * The objects this process wrote to the clone's store for its records (loose-objects.ts), kept in
 * memory by id with their type and body, so a push can put them in its pack without reading the
 * object store (ADR 0470). Bounded: past MAX_BYTES the oldest are forgotten, and a push that needs
 * one of those is left to git.
 */

export type ObjectType = "commit" | "tree" | "blob";

export interface MadeObject {
  type: ObjectType;
  body: Buffer;
}

const MAX_BYTES = 32 * 1024 * 1024;
const made = new Map<string, MadeObject>();
let bytes = 0;

/** Remembers an object this process wrote (or found already written with the same bytes). */
export function rememberMade(id: string, type: ObjectType, body: Buffer): void {
  if (body.length > MAX_BYTES / 4) return;
  const had = made.get(id);
  if (had) {
    // Written again: the newest, so the last to be forgotten.
    made.delete(id);
    made.set(id, had);
    return;
  }
  made.set(id, { type, body });
  bytes += body.length;
  for (const [old, o] of made) {
    if (bytes <= MAX_BYTES) break;
    made.delete(old);
    bytes -= o.body.length;
  }
}

export function madeObject(id: string): MadeObject | undefined {
  return made.get(id);
}
