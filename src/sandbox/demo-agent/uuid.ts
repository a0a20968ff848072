/**
 * Random (version 4) UUIDs for the demo agent's session id and events, without `node:crypto` on
 * its start path (ADR 0497): loading that module (and OpenSSL behind it) was ~2–9 ms of the 90–145
 * ms of CPU a demo agent's process costs, paid twice a ticket and by eight agents at once at K = 4. The
 * bytes come from the kernel's `/dev/urandom` (bwrap's `--dev` has it), read a pool at a time as
 * `crypto.randomUUID` caches its own; where it cannot be read, from `node:crypto`, loaded then.
 */
import type * as nodeCrypto from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let at = POOL_BYTES;
let urandom: "unknown" | "readable" | "unreadable" = "unknown";

/** Fills the pool from /dev/urandom; false when it cannot be read whole. */
function refill(): boolean {
  if (urandom === "unreadable") return false;
  let fd: number | undefined;
  try {
    fd = openSync("/dev/urandom", "r");
    let filled = 0;
    while (filled < POOL_BYTES) {
      const n = readSync(fd, pool, filled, POOL_BYTES - filled, null);
      if (n <= 0) throw new Error("/dev/urandom gave no bytes");
      filled += n;
    }
    urandom = "readable";
    at = 0;
    return true;
  } catch {
    urandom = "unreadable";
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** As `crypto.randomUUID()`: 122 random bits, the version (4) and variant (10xx) bits set. */
export function randomUuid(): string {
  if (at + 16 > POOL_BYTES && !refill()) {
    // Evaluated only where /dev/urandom cannot be read (not Linux, or no /dev in the sandbox).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only on this fallback (above)
    return (require("node:crypto") as typeof nodeCrypto).randomUUID();
  }
  const b = pool.subarray(at, at + 16);
  at += 16;
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
