/**
 * One object written into an object store as a loose object, the way object-file.c writes one
 * (gitformat-loose: zlib of `<type> <size>\0<body>`, named by its hash): a temporary file in the
 * object's folder, then linked to its name, so a reader never sees half an object and an object
 * already there (the same bytes, by its name) is kept as it is. Where a link cannot be made (a file
 * system without hard links), it is renamed instead, as git falls back. Not fsynced: git 2.39 does
 * not fsync loose objects by default (core.fsync's default leaves them out).
 *
 * The one writer of the Run's records (loose-objects.ts, ADR 0261) and of the sandbox's merge
 * commits and pushed objects (commit-object.ts, ADR 0479; unpack-in-process.ts, ADR 0491), and of
 * the Run's small fetches (unpack-fetched.ts, ADR 0501).
 */
import { createHash, randomBytes } from "node:crypto";
import { linkSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { link, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { removeFile, removeFileSync } from "../remove-file";

export type LooseObjectType = "commit" | "tree" | "blob";

/** The id git gives an object of this type and body, in the store's hash. */
export function looseObjectId(algorithm: "sha1" | "sha256", type: LooseObjectType, body: Buffer): string {
  return createHash(algorithm).update(`${type} ${body.length}\0`, "latin1").update(body).digest("hex");
}

/** The object's id, its file, a temporary name beside it, and its bytes as a loose object. */
function prepare(objectsDir: string, algorithm: "sha1" | "sha256", type: LooseObjectType, body: Buffer) {
  const id = looseObjectId(algorithm, type, body);
  const dir = join(objectsDir, id.slice(0, 2));
  return {
    id,
    dir,
    file: join(dir, id.slice(2)),
    temp: join(dir, `tmp_obj_${process.pid}_${randomBytes(6).toString("hex")}`),
    // core.looseCompression's default: zlib's best speed (the object's id is of its contents, not of these bytes).
    deflated: deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`, "latin1"), body]), { level: 1 }),
  };
}

/** Writes the object under `objectsDir` (a repository's `objects` folder) and returns its id. */
export async function writeLooseObjectFile(objectsDir: string, algorithm: "sha1" | "sha256", type: LooseObjectType, body: Buffer): Promise<string> {
  const { id, dir, file, temp, deflated } = prepare(objectsDir, algorithm, type, body);
  // The folder is made only when it is not there yet: most are, and a mkdir is a call more each time.
  await writeFile(temp, deflated, { mode: 0o444, flag: "wx" }).catch(async (e: NodeJS.ErrnoException) => {
    if (e.code !== "ENOENT") throw e;
    await mkdir(dir, { recursive: true });
    await writeFile(temp, deflated, { mode: 0o444, flag: "wx" });
  });
  let renamed = false;
  try {
    await link(temp, file).catch(async (e: NodeJS.ErrnoException) => {
      if (e.code === "EEXIST") return;
      await rename(temp, file);
      renamed = true;
    });
  } finally {
    // Renamed, the temporary name is gone; linked (or there already), it is removed.
    if (!renamed) await removeFile(temp);
  }
  return id;
}

/**
 * The same write with the file system's calls made in place (ADR 0501): a fetch's few small
 * objects, where `fs/promises` costs a trip to the thread pool a call (three or four an object)
 * and as much CPU as the write itself; and the sandbox's merge commits and small pushes' objects (ADR 0507).
 */
export function writeLooseObjectFileSync(objectsDir: string, algorithm: "sha1" | "sha256", type: LooseObjectType, body: Buffer): string {
  const { id, dir, file, temp, deflated } = prepare(objectsDir, algorithm, type, body);
  try {
    writeFileSync(temp, deflated, { mode: 0o444, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, deflated, { mode: 0o444, flag: "wx" });
  }
  let renamed = false;
  try {
    linkSync(temp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") {
      renameSync(temp, file);
      renamed = true;
    }
  } finally {
    if (!renamed) removeFileSync(temp);
  }
  return id;
}
