/**
 * A request body read whole into a file before `git http-backend` sees it. git 2.39's
 * http-backend reads a body of CONTENT_LENGTH bytes in a loop that never ends when its input ends
 * early (a client killed mid-push): it spins a core forever, long after the sandbox is gone. From a
 * file of exactly CONTENT_LENGTH bytes it can always read to the end, so it always finishes. The
 * backend is started by the spawner (ADR 0391), which opens the file by its name; the caller
 * removes it once the backend has started (or could not).
 */
import { randomUUID } from "node:crypto";
import { createWriteStream, promises as fsp } from "node:fs";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { removeFile } from "../adapters/remove-file";

export interface SpooledBody {
  /** The file holding the whole body; `remove()` it once the backend has it open. */
  path: string;
  size: number;
  remove(): Promise<void>;
}

/** Empties the spool folder (bodies a killed sandbox left half-written) and makes sure it exists. */
export async function resetSpool(dir: string): Promise<void> {
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { recursive: true });
}

/** The whole body, or null when the client went away before it ended (the request is then dropped, and nothing is left on disk). */
/** A new file name in the spool folder. */
export function spoolPath(dir: string): string {
  return path.join(dir, `${randomUUID()}.body`);
}

export async function spoolBody(req: IncomingMessage, dir: string): Promise<SpooledBody | null> {
  const name = spoolPath(dir);
  const remove = (): Promise<void> => removeFile(name);
  try {
    await pipeline(req, createWriteStream(name, { flags: "wx" }));
    if (!req.complete) {
      await remove();
      return null;
    }
    const { size } = await fsp.stat(name);
    return { path: name, size, remove };
  } catch {
    // ERR_STREAM_PREMATURE_CLOSE: the client vanished mid-body.
    await remove();
    return null;
  }
}
