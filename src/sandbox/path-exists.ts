import { accessSync } from "node:fs";

/**
 * Whether `file` is there (links followed), as `access` says; any error reads as absent. Asked in
 * place, not on the thread pool: one `access` costs less CPU than a trip there and back, and every
 * push and fetch asks two or three (ADR 0507).
 */
export async function pathExists(file: string): Promise<boolean> {
  try {
    accessSync(file);
    return true;
  } catch {
    return false;
  }
}
