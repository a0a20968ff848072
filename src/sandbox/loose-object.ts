/**
 * An object written by the sandbox itself into a repository as a loose object, the way
 * object-file.c writes one (gitformat-loose: zlib of `<type> <size>\0<body>`, named by its SHA-1):
 * a temporary file in the object's folder, linked to its name, an object already there kept.
 * Not fsynced, as git 2.39 does not fsync loose objects by default (core.fsync's default leaves
 * them out). Used for a merge's commit (commit-object.ts, ADR 0479) and a push's objects
 * (unpack-in-process.ts, ADR 0491).
 */
import { createHash, randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";

/** Writes the object and returns its id. */
export async function writeLooseObject(gitDir: string, type: "commit" | "tree" | "blob", body: Buffer): Promise<string> {
  const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`, "latin1"), body]);
  const id = createHash("sha1").update(object).digest("hex");
  const dir = path.join(gitDir, "objects", id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString("hex")}`);
  // core.looseCompression's default: zlib's best speed (the object's id is of its contents, not of these bytes).
  const deflated = deflateSync(object, { level: 1 });
  // The folder is made only when it is not there yet: most are, and a mkdir is a call more each time.
  await fsp.writeFile(temp, deflated, { mode: 0o444, flag: "wx" }).catch(async (e: NodeJS.ErrnoException) => {
    if (e.code !== "ENOENT") throw e;
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(temp, deflated, { mode: 0o444, flag: "wx" });
  });
  try {
    // link, not rename: an object already there (the same bytes, by its name) is kept as it is.
    await fsp.link(temp, file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
  } finally {
    await fsp.rm(temp, { force: true });
  }
  return id;
}
