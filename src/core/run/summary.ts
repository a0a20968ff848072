/**
 * The Run's summary: one row per ticket in the order they ended, a closing line, and the exit
 * code: 0 nothing handed off, 1 anything handed off, 2 refused (a narrowed Run that took none of
 * its tickets counts as refused, like `start <n>` would be).
 */
import type { EndingKind } from "./run-events";
import { resetTime, utcClock } from "./naming";
import { unavailableLine } from "./agent-faults";
import type { Unavailable } from "./agent-faults";

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

function isTaken(row: SummaryRow): boolean {
  return row.ending !== "skipped";
}

export interface SummaryFacts {
  runId: string;
  rows: SummaryRow[];
  narrowed: boolean;
  stoppedAt: Date | null;
  stoppedHolding: number[];
  rateLimited: boolean;
  /** When the limit resets (ISO), if the agent said. */
  limitResetsAt?: string | null;
  /** The agent could not work at all: the Run stopped taking tickets (ADR-0141). */
  unavailable?: Unavailable | null;
  extraLines?: string[];
}

function exitCodeFor(facts: SummaryFacts): number {
  if (facts.rows.some((r) => r.ending === "handed-off" || r.ending === "failed")) return 1;
  // Nothing was handed off, but the Run could not do its work: a person has to act on this Host.
  if (facts.unavailable) return 1;
  if (facts.narrowed && !facts.rows.some(isTaken)) return 2;
  return 0;
}

function closingLine(facts: SummaryFacts): string {
  if (facts.stoppedAt) {
    const holding = facts.stoppedHolding.length ? ` · finishing ${facts.stoppedHolding.map((n) => `#${n}`).join(" ")}` : "";
    return `Stopped at ${utcClock(facts.stoppedAt)}${holding}.`;
  }
  if (facts.unavailable) return unavailableLine(facts.unavailable);
  if (facts.rateLimited) {
    const when = resetTime(facts.limitResetsAt);
    return when ? `Rate limited: the limit resets ${when}; run \`ticket-runner run\` again then.` : "Rate limited.";
  }
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
