/**
 * Whether the clone has an object as a commit, or certainly lacks it, read from its files (ADR
 * 0488): a loose object, else a pack's index (gitformat-pack(5), `.idx` version 2: a 256-entry
 * fan-out table, the sorted object names, their CRCs, their offsets) and the type in its pack
 * entry's first byte. A push asks which of the remote's tips this clone has; at K = 4 most are
 * other Hosts' branches it never fetched, and a first round's base is in the clone's pack: either
 * sent the whole question to `cat-file`.
 *
 * The loose file is looked for first and the packs listed after: a repack that packs an object
 * writes its pack's `.idx` before it removes the loose copy, so a copy missed here was packed
 * already. Not certain: a packed delta (its type is its base's), alternates, a partial clone's promisor packs (git would fetch),
 * an index that does not read as version 2, a SHA-256 clone.
 */
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { cloneStore } from "./clone-store";
import { hasLooseObject } from "./fetch-http";
import { readGitText } from "./git-dir-files";
import { readLoose } from "./loose-read";
import { indexOffset } from "./pack-read";
import type { RepoContext } from "./repo-context";

const SHA1 = /^[0-9a-f]{40}$/;

/** What the clone holds under an object name: a commit, nothing at all, or something not settled here. */
export type ObjectKind = "commit" | "absent" | "unsure";

/** A loose or packed commit, an object the clone certainly lacks, or unsure (any other type, a delta, a pack not read). */
export async function objectKind(ctx: RepoContext, sha: string): Promise<ObjectKind> {
  if (!SHA1.test(sha)) return "unsure";
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1") return "unsure";
  if (await hasLooseObject(ctx, sha)) return (await readLoose(ctx, sha))?.type === "commit" ? "commit" : "unsure";
  const alternates = readGitText(join(store.dir, "info", "alternates")) ?? "";
  if (alternates.trim() !== "") return "unsure";
  const packDir = join(store.dir, "pack");
  const names = await readdir(packDir).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? [] : null));
  if (!names || names.some((n) => n.endsWith(".promisor"))) return "unsure";
  const want = Buffer.from(sha, "hex");
  for (const name of names) {
    if (!name.endsWith(".idx")) continue;
    const found = indexOffset(join(packDir, name), want);
    if (found === null) return "unsure";
    if (found >= 0) return (await packedType(join(packDir, `${name.slice(0, -".idx".length)}.pack`), found)) === 1 ? "commit" : "unsure";
  }
  return "absent";
}

/** The type number of the pack entry at `offset` (1 commit, 2 tree, 3 blob, 4 tag, 6 and 7 deltas); null when not read. */
async function packedType(path: string, offset: number): Promise<number | null> {
  const file = await open(path, "r").catch(() => null);
  if (!file) return null;
  try {
    const byte = Buffer.alloc(1);
    if ((await file.read(byte, 0, 1, offset)).bytesRead !== 1) return null;
    return (byte[0]! >> 4) & 7;
  } finally {
    await file.close();
  }
}
