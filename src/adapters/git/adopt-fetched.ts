/**
 * Moves what a network fetch wrote into the Run's private git directory into the clone's own
 * object store (ADR 0473), in place of a local `git fetch` from that directory (five processes).
 * The private directory borrows the clone's objects through its alternates, so an object moved
 * there stays visible to a fetch still running in the private directory: each file is made
 * visible in the clone first (hard link, or a copy renamed into place across filesystems) and
 * only then removed from the private directory. Objects are immutable and named by their content:
 * a file the clone has already is simply dropped.
 */
import { randomBytes } from "node:crypto";
import { copyFile, link, mkdir, readdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";

const LOOSE_DIR = /^[0-9a-f]{2}$/;
const LOOSE_NAME = /^[0-9a-f]{38}([0-9a-f]{24})?$/;
const PACK = /^(pack-[0-9a-f]{40,64})\.pack$/;
/** A pack's files in the order they become visible in the clone: git ignores a pack until its `.idx` is there. */
const PACK_ORDER = [".pack", ".rev", ".idx"] as const;

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch((e: unknown) => {
    if (code(e) === "ENOENT") return [];
    throw e;
  });
}

/**
 * Makes `from` visible at `to` without ever replacing a file there. "gone" when `from` is not
 * there (another adoption moved it: it is at `to` already, as removal only follows placing).
 */
async function place(from: string, to: string, tempPrefix: string): Promise<"placed" | "present" | "gone"> {
  try {
    await link(from, to);
    return "placed";
  } catch (e) {
    if (code(e) === "EEXIST") return "present";
    if (code(e) === "ENOENT") return "gone";
    if (code(e) !== "EXDEV" && code(e) !== "EPERM") throw e;
  }
  // Another filesystem (the private directory is under the system's temp folder): a whole copy
  // under a name git skips (tmp_), then linked into place, so nobody reads a half-written object.
  const temp = join(dirname(to), `${tempPrefix}${process.pid}_${randomBytes(6).toString("hex")}`);
  try {
    await copyFile(from, temp);
  } catch (e) {
    if (code(e) === "ENOENT") return "gone";
    throw e;
  }
  try {
    await link(temp, to);
    return "placed";
  } catch (e) {
    if (code(e) === "EEXIST") return "present";
    throw e;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function drop(path: string): Promise<void> {
  await unlink(path).catch((e: unknown) => {
    if (code(e) !== "ENOENT") throw e;
  });
}

async function adoptLoose(from: string, to: string): Promise<number> {
  let moved = 0;
  for (const dir of (await names(from)).filter((n) => LOOSE_DIR.test(n))) {
    // tmp_obj_* is an object another git is still writing: only finished objects have their name.
    const objects = (await names(join(from, dir))).filter((n) => LOOSE_NAME.test(n));
    if (objects.length === 0) continue;
    await mkdir(join(to, dir), { recursive: true });
    for (const name of objects) {
      if ((await place(join(from, dir, name), join(to, dir, name), "tmp_obj_")) === "placed") moved++;
      await drop(join(from, dir, name));
    }
  }
  return moved;
}

async function adoptPacks(from: string, to: string): Promise<number> {
  const files = new Set(await names(from));
  let moved = 0;
  for (const file of files) {
    const base = PACK.exec(file)?.[1];
    // A pack without its .idx is one another fetch is still writing (git renames the .idx last).
    if (!base || !files.has(`${base}.idx`)) continue;
    await mkdir(to, { recursive: true });
    const parts = PACK_ORDER.filter((ext) => ext !== ".rev" || files.has(`${base}.rev`));
    for (const ext of parts) if ((await place(join(from, base + ext), join(to, base + ext), "tmp_pack_")) === "placed" && ext === ".idx") moved++;
    // The .idx leaves first, so no git reading the private directory finds an index without its pack.
    for (const ext of [...parts].reverse()) await drop(join(from, base + ext));
  }
  return moved;
}

/**
 * Moves every finished loose object and pack of the object directory `from` into `to` (the
 * clone's object directory). A pack's `.keep` stays: it is the lock of the fetch that wrote it,
 * which removes it itself. Returns how many objects and packs were new to `to`.
 */
export async function adoptObjects(from: string, to: string): Promise<{ loose: number; packs: number }> {
  const loose = await adoptLoose(from, to);
  const packs = await adoptPacks(join(from, "pack"), join(to, "pack"));
  return { loose, packs };
}
