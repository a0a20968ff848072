/** Names the Run derives: run ids and log paths (branch names come from Workspace.branchFor). Pure functions. */
import * as path from "node:path";

/** `2026-09-17T09-00-00-000`: the ISO time in UTC with `:` and `.` made path-safe. */
export function runIdFor(at: Date): string {
  return at.toISOString().replace(/Z$/, "").replace(/[:.]/g, "-");
}

/** `HH:MM` in UTC, like the run id. */
export function utcClock(at: Date): string {
  return at.toISOString().slice(11, 16);
}

/** When a limit resets, unambiguous whatever the day: `2026-12-03 22:13 UTC`; null for a bad value. */
export function resetTime(iso: string | null | undefined): string | null {
  const at = iso ? new Date(iso) : null;
  if (!at || Number.isNaN(at.getTime())) return null;
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** `.ticket-runner/runs/<runId>` under the Target's clone. */
export function runLogDir(root: string, runId: string): string {
  return path.join(root, ".ticket-runner", "runs", runId);
}

export function ticketLogDir(root: string, runId: string, ticket: number): string {
  return path.join(runLogDir(root, runId), String(ticket));
}

/** A configured limit in minutes, as a person would say it: "20 min", "90 s". */
export function formatMinutes(minutes: number): string {
  return minutes >= 1 ? `${Number(minutes.toFixed(2))} min` : `${Number((minutes * 60).toFixed(1))} s`;
}
