/**
 * The live display of `ticket-runner run`, built only from the Run's events. On a terminal: one
 * line per Lane, redrawn in place, with each ended ticket printed above them. Otherwise (a log
 * file, CI): one plain timestamped line per event that matters.
 */
import type { AgentEvent } from "../ports/agent-runner";
import type { RunEvent } from "../core/run/run-events";
import { clock, formatDuration } from "../core/text/time";
import { sanitizeInline } from "../core/board/sanitize";

export interface DisplaySink {
  /** A permanent line. */
  line(text: string): void;
  /** Raw output, for redrawing (TTY only). */
  raw(text: string): void;
}

interface LaneState {
  ticket: number;
  title: string;
  stage: string;
  stageSince: number;
  last: string;
}

/** Titles and agent text, drawn raw on the terminal: one line, no controls or bidi (the board's cleaning). */
function clip(text: string, max: number): string {
  return sanitizeInline(text, max, "");
}

function describe(event: AgentEvent): string | null {
  switch (event.kind) {
    case "text":
      return event.text;
    case "tool":
      return `${event.name} ${event.summary}`;
    case "rate-limit":
      return `rate limit: ${event.status}`;
    default:
      return null;
  }
}

export class RunDisplay {
  private readonly lanes = new Map<number, LaneState>();
  private drawn = 0;
  private lastDraw = 0;

  constructor(
    private readonly sink: DisplaySink,
    private readonly tty: boolean,
    private readonly width = 100,
    private readonly now: () => number = () => Date.now(),
  ) {}

  readonly onEvent = (e: RunEvent): void => {
    switch (e.kind) {
      case "run-started":
        this.print(`Run ${e.runId}: ${e.lanes} lane(s)${e.narrowedTo ? `, tickets ${e.narrowedTo.map((n) => `#${n}`).join(" ")}` : ""}`);
        break;
      case "lane-started":
        this.lanes.set(e.lane, { ticket: e.ticket, title: e.title, stage: "setup", stageSince: Date.parse(e.at), last: "" });
        if (!this.tty) this.print(`[${clock(e.at)}] lane ${e.lane + 1}: #${e.ticket} ${clip(e.title, 60)}${e.resumed ? " (resumed)" : ""}`);
        break;
      case "stage-started": {
        const lane = this.lanes.get(e.lane);
        if (lane) Object.assign(lane, { stage: e.stage, stageSince: Date.parse(e.at), last: "" });
        break;
      }
      case "stage-ended":
        if (!this.tty)
          this.print(
            `[${clock(e.at)}] #${e.ticket} ${e.stage}: ${e.outcome}${e.turns !== null ? ` · ${e.turns} turns` : ""} · ${formatDuration(e.durationMs)}`,
          );
        break;
      case "transcript": {
        const lane = this.lanes.get(e.lane);
        const text = describe(e.event);
        if (lane && text) lane.last = text;
        if (this.tty && this.now() - this.lastDraw < 200) return;
        break;
      }
      case "ticket-ended":
        if (e.lane !== null) this.lanes.delete(e.lane);
        this.print(`[${clock(e.at)}] #${e.ticket} ${e.ending}: ${clip(e.line, 200)}`);
        break;
      case "run-stopping":
        this.print(`[${clock(e.at)}] ${e.holding.length ? `${e.holding.map((n) => `#${n}`).join(" ")} left to finish` : "nothing left to finish"} · stopped`);
        break;
      case "run-ended":
        this.lanes.clear();
        break;
    }
    if (this.tty) this.redraw();
  };

  /**
   * Writes something else to the terminal (a log line on stderr) above the Lane rows. Without this
   * the next redraw would move up over that line instead of the rows: it would vanish, and a stale
   * row would stay on screen.
   */
  above(write: () => void): void {
    if (!this.tty) return write();
    this.erase();
    write();
    this.redraw();
  }

  private print(text: string): void {
    if (this.tty) this.erase();
    this.sink.line(text);
  }

  private erase(): void {
    if (this.drawn === 0) return;
    this.sink.raw(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private redraw(): void {
    this.erase();
    const rows = [...this.lanes.entries()].sort((a, b) => a[0] - b[0]);
    const now = this.now();
    for (const [i, l] of rows) {
      const head = `lane ${i + 1}  #${l.ticket} ${clip(l.title, 30)}  ${l.stage} ${formatDuration(now - l.stageSince)}`;
      const full = `${head}${l.last ? `  · ${clip(l.last, this.width)}` : ""}`;
      this.sink.raw(`${full.length <= this.width ? full : `${full.slice(0, this.width - 1)}…`}\n`);
    }
    this.drawn = rows.length;
    this.lastDraw = now;
  }
}
