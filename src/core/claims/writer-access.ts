/**
 * Commands that write to the board check the caller's own access first (ADR 0220): GitHub would
 * refuse a reader's writes one by one, half-way through, with its own words. A token whose access
 * the API does not report (some App tokens) is let through; GitHub still has the last word.
 */
import type { Tracker } from "../../ports/tracker";
import { notAWriter } from "./refusals";
import { canWrite } from "./trust";

export async function requireWriteAccess(tracker: Pick<Tracker, "access" | "viewer" | "repo">, doing: string, again: string): Promise<void> {
  const permission = await tracker.access();
  if (permission === null || canWrite(permission)) return;
  throw notAWriter(await tracker.viewer(), permission, `${tracker.repo.owner}/${tracker.repo.repo}`, doing, again);
}
