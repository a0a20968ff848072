/**
 * One file removed, and a file already gone taken as removed (what `rm` with `force` does for a
 * file). An unlink, not `rm`: Node's `rm` and `rmSync` lstat the path and go through their
 * rimraf walk first, which made up half of the CPU of the calls writing a loose object (ADR 0507).
 */
import { unlinkSync } from "node:fs";
import { unlink } from "node:fs/promises";

function gone(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
}

export async function removeFile(file: string): Promise<void> {
  await unlink(file).catch(gone);
}

export function removeFileSync(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    gone(e);
  }
}
