/**
 * Renders AgentEvents as readable transcript lines, the same for the CLI and the VS Code output
 * channels ("Ticket Runner #42"):
 *
 *   ── #42 implement ───────────────────────────────
 *   session 5f1c… · model claude-sonnet-4-5
 *   I'll start by reading the cart module.
 *   ▸ Read src/cart.js
 *     ✓ const CURRENCY = "EUR"; (+14 more lines)
 *   ▸ Bash npm test
 *     ✗ 1 failing (+20 more lines)
 *   ── implement: ✓ success · 7 turns · 1m 12s ─────
 *
 * Pure apart from remembering the current Stage between its start and result events.
 */
import type { AgentEvent, StageName, StageOutcome } from "../../ports/agent-runner";
import { rule } from "./lines";
import { formatDuration } from "./time";

const OUTCOME_MARK: Record<StageOutcome, string> = {
  success: "✓",
  "rate-limited": "⏸",
  "timed-out": "⏱",
  "turn-capped": "↻",
  "nonzero-exit": "✗",
  "invalid-result": "✗",
  unavailable: "⊘",
};

function formatStageHeader(stage: StageName, ticket: number): string {
  return rule(`#${ticket} ${stage}`);
}

function formatStageFooter(stage: string, outcome: StageOutcome, turns: number, durationMs?: number): string {
  const parts = [`${OUTCOME_MARK[outcome]} ${outcome}`, `${turns} turn${turns === 1 ? "" : "s"}`];
  if (durationMs !== undefined) parts.push(formatDuration(durationMs));
  return rule(`${stage}: ${parts.join(" · ")}`);
}

export interface TranscriptFormatOptions {
  /** Show `ignored` events (unknown event types, thinking blocks) as dim notes. Default false. */
  showIgnored?: boolean;
  /** Longest assistant text shown per event, in lines; the rest is summarised. Default 40. */
  maxTextLines?: number;
}

export class TranscriptFormatter {
  private stage = "stage";

  constructor(private readonly opts: TranscriptFormatOptions = {}) {}

  format(event: AgentEvent): string[] {
    switch (event.kind) {
      case "start":
        this.stage = event.stage;
        return [formatStageHeader(event.stage, event.ticket), `$ ${event.command}`];
      case "init":
        return [`session ${event.sessionId} · model ${event.model}`];
      case "text": {
        const lines = event.text.replace(/\s+$/, "").split("\n");
        const max = this.opts.maxTextLines ?? 40;
        if (lines.length <= max) return lines;
        return [...lines.slice(0, max), `… (${lines.length - max} more lines)`];
      }
      case "tool":
        return [event.summary ? `▸ ${event.name} ${event.summary}` : `▸ ${event.name}`];
      case "tool-result":
        return [`  ${event.isError ? "✗" : "✓"} ${event.summary}`];
      case "rate-limit":
        // A subscriber's CLI reports `allowed` on every request: that is no news.
        if (event.status === "allowed") return [];
        return [event.status === "rejected" ? "⏸ rate limit reached (rejected)" : `⚠ rate limit: ${event.status}`];
      case "result": {
        const out = [formatStageFooter(this.stage, event.outcome, event.turns, event.durationMs)];
        if (event.detail) out.push(`  ${event.detail}`);
        return out;
      }
      case "ignored":
        return this.opts.showIgnored ? [`  · ignored: ${event.reason}`] : [];
    }
  }
}
