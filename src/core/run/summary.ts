/**
 * The Run's summary: one row per ticket in the order they ended, a closing line, and the exit
 * code: 0 nothing handed off, 1 anything handed off, 2 refused (a narrowed Run that took none of
 * its tickets counts as refused, like `start <n>` would be).
 */
import type { EndingKind } from "./run-events";
import { utcClock } from "./naming";

export interface SummaryRow {
  ticket: number;
  ending: EndingKind;
  line: string;
}

export interface RunSummary {
  runId: string;
  rows: SummaryRow[];
  lines: string[];
  exitCode: number;
}

const WORD: Record<EndingKind, string> = {
  merged: "merged",
  "handed-off": "handed off",
  released: "released",
  skipped: "skipped",
  yielded: "yielded",
  failed: "failed",
};

export function isTaken(row: SummaryRow): boolean {
  return row.ending !== "skipped";
}

export interface SummaryFacts {
  runId: string;
  rows: SummaryRow[];
  narrowed: boolean;
  stoppedAt: Date | null;
  stoppedHolding: number[];
  rateLimited: boolean;
  extraLines?: string[];
}

export function exitCodeFor(facts: SummaryFacts): number {
  if (facts.rows.some((r) => r.ending === "handed-off" || r.ending === "failed")) return 1;
  if (facts.narrowed && !facts.rows.some(isTaken)) return 2;
  return 0;
}

export function closingLine(facts: SummaryFacts): string {
  if (facts.stoppedAt) {
    const holding = facts.stoppedHolding.length ? ` · finishing ${facts.stoppedHolding.map((n) => `#${n}`).join(" ")}` : "";
    return `Stopped at ${utcClock(facts.stoppedAt)}${holding}.`;
  }
  if (facts.rateLimited) return "Rate limited.";
  const count = (k: EndingKind) => facts.rows.filter((r) => r.ending === k).length;
  if (!facts.rows.some(isTaken)) return facts.narrowed ? "None of the given tickets could be taken." : "Nothing to do: the Frontier is empty.";
  const parts = [`${count("merged")} merged`];
  if (count("handed-off")) parts.push(`${count("handed-off")} handed off`);
  if (count("released")) parts.push(`${count("released")} released`);
  return `Done: ${parts.join(", ")}.`;
}

export function summarize(facts: SummaryFacts): RunSummary {
  const width = Math.max(3, ...facts.rows.map((r) => String(r.ticket).length + 1));
  const lines = [`Run ${facts.runId}: ${facts.rows.filter(isTaken).length} ticket(s) taken`];
  for (const r of facts.rows) lines.push(`  ${`#${r.ticket}`.padEnd(width)}  ${WORD[r.ending].padEnd(10)}  ${r.line}`);
  lines.push(...(facts.extraLines ?? []));
  lines.push(closingLine(facts));
  return { runId: facts.runId, rows: facts.rows, lines, exitCode: exitCodeFor(facts) };
}
