// No `vscode` import: which Run events pop up a notification, at which level, unit-tested without VS Code.
import type { RunEvent } from "../../core/run/run-events";

export type NotificationLevel = "all" | "handoffs" | "none";

export function asNotificationLevel(value: unknown): NotificationLevel {
  return value === "all" || value === "none" ? value : "handoffs";
}

export type RunNotice =
  | { readonly kind: "handed-off"; readonly ticket: number; readonly severity: "warning"; readonly message: string }
  | { readonly kind: "merged" | "released"; readonly ticket: number; readonly severity: "info"; readonly message: string }
  | { readonly kind: "summary"; readonly severity: "info" | "warning"; readonly message: string };

/**
 * - a Hand-off: always, unless notifications are off (a person has work to do; button to the comment);
 * - the Run's end: its summary, unless off;
 * - a merge or a Release: only with "all" (merges are the normal case; the summary counts them).
 */
export function noticeFor(event: RunEvent, level: NotificationLevel, repo: string): RunNotice | null {
  if (level === "none") return null;
  if (event.kind === "ticket-ended") {
    if (event.ending === "handed-off") {
      return {
        kind: "handed-off",
        ticket: event.ticket,
        severity: "warning",
        message: `Ticket Runner: ${repo}#${event.ticket} was handed off to a person (${event.line}).`,
      };
    }
    if (level !== "all") return null;
    if (event.ending === "merged")
      return { kind: "merged", ticket: event.ticket, severity: "info", message: `Ticket Runner: ${repo}#${event.ticket} merged (${event.line}).` };
    if (event.ending === "released")
      return {
        kind: "released",
        ticket: event.ticket,
        severity: "info",
        message: `Ticket Runner: ${repo}#${event.ticket} was released (${event.line}); it is back on the Frontier and resumes from its State file.`,
      };
    return null;
  }
  if (event.kind === "run-ended") {
    const lines = event.lines.filter((l) => l.trim().length > 0);
    const closing = lines.at(-1) ?? "The Run ended.";
    // The first line names the run id; the rows are padded for a terminal.
    const rows = lines.slice(1, -1).map((l) => l.replace(/\s+/g, " ").trim());
    const shown = rows.length > 4 ? [...rows.slice(0, 4), `… ${rows.length - 4} more in the log`] : rows;
    const message = `Ticket Runner: ${closing}${shown.length ? ` ${shown.join(" · ")}` : ""}`;
    return { kind: "summary", severity: event.exitCode === 0 ? "info" : "warning", message };
  }
  return null;
}
