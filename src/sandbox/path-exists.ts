import { promises as fsp } from "node:fs";

/** Whether `file` is there (links followed), as `access` says; any error reads as absent. */
export async function pathExists(file: string): Promise<boolean> {
  return fsp.access(file).then(
    () => true,
    () => false,
  );
}
