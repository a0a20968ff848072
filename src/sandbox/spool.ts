/**
 * A request body read whole into a file before `git http-backend` sees it. git 2.39's
 * http-backend reads a body of CONTENT_LENGTH bytes in a loop that never ends when its input ends
 * early (a client killed mid-push): it spins a core forever, long after the sandbox is gone. From a
 * file of exactly CONTENT_LENGTH bytes it can always read to the end, so it always finishes.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream, promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";

export interface SpooledBody {
  /** Open for reading, already unlinked: nothing is left on disk whatever happens next. */
  file: FileHandle;
  size: number;
}

/** Empties the spool folder (bodies a killed sandbox left half-written) and makes sure it exists. */
export async function resetSpool(dir: string): Promise<void> {
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { recursive: true });
}

/** The whole body, or null when the client went away before it ended (the request is then dropped). */
export async function spoolBody(req: IncomingMessage, dir: string): Promise<SpooledBody | null> {
  const name = path.join(dir, `${randomUUID()}.body`);
  try {
    await pipeline(req, createWriteStream(name, { flags: "wx" }));
    if (!req.complete) return null;
    const file = await fsp.open(name, "r");
    const { size } = await file.stat();
    return { file, size };
  } catch {
    // ERR_STREAM_PREMATURE_CLOSE: the client vanished mid-body.
    return null;
  } finally {
    await fsp.rm(name, { force: true });
  }
}
