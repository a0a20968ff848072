// No `vscode` import: the readable transcript of one ticket, from the Run's events. The agent's own
// events are rendered by the agents' formatter (src/core/text/transcript-format.ts), so the
// CLI and the output channel read alike; this adds what only the Run knows: the lane, the Stages
// that are not agent sessions (checks, rebase, pr, ci, merge) and each Stage's outcome and duration.
import { rule } from "../../core/text/lines";
import { clock, formatDuration } from "../../core/text/time";
import { TranscriptFormatter } from "../../core/text/transcript-format";
import type { RunEvent } from "../../core/run/run-events";

const AGENT_STAGES = new Set<string>(["implement", "verify", "fix", "conflict"]);
/** One per ticket: keeps the formatter's Stage context between events. */
export class TicketTranscript {
  private readonly agent = new TranscriptFormatter();

  constructor(readonly ticket: number) {}

  /** The lines one Run event adds to this ticket's transcript (none for other tickets' events). */
  lines(event: RunEvent): string[] {
    if (!("ticket" in event) || event.ticket !== this.ticket) return [];
    switch (event.kind) {
      case "lane-started":
        return [
          "",
          rule(`#${event.ticket} ${event.title}`.slice(0, 90)),
          `${clock(event.at)} lane ${event.lane + 1}${event.resumed ? " · resumed from its State file" : " · taken from the Frontier"}`,
        ];
      case "stage-started":
        // An agent Stage's header comes from the agent's own start event (with its command line).
        return AGENT_STAGES.has(event.stage) ? [] : [rule(`#${event.ticket} ${event.stage}`)];
      case "transcript":
        // The agent's result footer is replaced by the Run's stage-ended line, which carries the
        // Stage's real outcome (e.g. "2 of 3 criteria met"); only the failure detail is kept.
        if (event.event.kind === "result") return event.event.detail ? [`  ${event.event.detail}`] : [];
        return this.agent.format(event.event);
      case "stage-ended": {
        const parts = [event.outcome];
        if (event.turns !== null) parts.push(`${event.turns} turn${event.turns === 1 ? "" : "s"}`);
        if (event.durationMs > 0) parts.push(formatDuration(event.durationMs));
        return [rule(`${event.stage}: ${parts.join(" · ")}`)];
      }
      case "ticket-ended":
        return [`${clock(event.at)} ■ ${event.ending}: ${event.line}`, ""];
    }
  }
}
