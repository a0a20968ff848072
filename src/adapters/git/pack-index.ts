/**
 * Whether the clone certainly lacks an object, read from its files (ADR 0488): not loose, and in
 * no pack's index (gitformat-pack(5), `.idx` version 2: a 256-entry fan-out table, then the sorted
 * object names). A push asks which of the remote's tips this clone has; at K = 4 most are other
 * Hosts' branches it never fetched, and one absent tip sent the whole question to `cat-file`.
 *
 * The loose file is looked for first and the packs listed after: a repack that packs an object
 * writes its pack's `.idx` before it removes the loose copy, so a copy missed here was packed
 * already. Not certain (false): alternates, a partial clone's promisor packs (git would fetch),
 * an index that does not read as version 2, a SHA-256 clone.
 */
import { open, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { cloneStore } from "./clone-store";
import { hasLooseObject } from "./fetch-http";
import type { RepoContext } from "./repo-context";

const SHA1 = /^[0-9a-f]{40}$/;
const IDX_MAGIC = Buffer.from([0xff, 0x74, 0x4f, 0x63]);
const HEADER = 8;
const FANOUT = 256 * 4;

export async function certainlyAbsent(ctx: RepoContext, sha: string): Promise<boolean> {
  if (!SHA1.test(sha)) return false;
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1" || (await hasLooseObject(ctx, sha))) return false;
  const alternates = await readFile(join(store.dir, "info", "alternates"), "utf8").catch(() => "");
  if (alternates.trim() !== "") return false;
  const packDir = join(store.dir, "pack");
  const names = await readdir(packDir).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? [] : null));
  if (!names || names.some((n) => n.endsWith(".promisor"))) return false;
  const want = Buffer.from(sha, "hex");
  for (const name of names) {
    if (!name.endsWith(".idx")) continue;
    if ((await inIndex(join(packDir, name), want)) !== false) return false;
  }
  return true;
}

/**
 * Whether a version-2 index lists `want`, read by its fan-out and a binary search of the names
 * (a large clone's index is megabytes: not read whole); null when it does not read as one.
 */
async function inIndex(path: string, want: Buffer): Promise<boolean | null> {
  const file = await open(path, "r").catch(() => null);
  if (!file) return null;
  try {
    const head = Buffer.alloc(HEADER + FANOUT);
    if ((await file.read(head, 0, head.length, 0)).bytesRead !== head.length) return null;
    if (!head.subarray(0, 4).equals(IDX_MAGIC) || head.readUInt32BE(4) !== 2) return null;
    const first = want[0]!;
    let lo = first === 0 ? 0 : head.readUInt32BE(HEADER + (first - 1) * 4);
    let hi = head.readUInt32BE(HEADER + first * 4);
    if (lo > hi || hi > head.readUInt32BE(HEADER + 255 * 4)) return null;
    const name = Buffer.alloc(20);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((await file.read(name, 0, 20, HEADER + FANOUT + mid * 20)).bytesRead !== 20) return null;
      const cmp = Buffer.compare(name, want);
      if (cmp === 0) return true;
      if (cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    return false;
  } finally {
    await file.close();
  }
}
