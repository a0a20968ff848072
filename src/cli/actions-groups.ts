/**
 * In GitHub Actions, each ticket's transcript is one collapsible `::group::` in the job log, written
 * when the ticket ends (Lanes run side by side; groups cannot interleave). Agent and issue text is
 * hostile: inside the group, workflow commands are switched off with `::stop-commands::<token>`
 * (a fresh random token per group, resumed with `::<token>::`), so no line of it can close the
 * group, add an annotation, set an output or mask anything (GitHub's workflow-commands doc,
 * "Stopping and starting workflow commands"). Control characters are dropped from every line.
 */
import { randomBytes } from "node:crypto";
import type { AgentEvent } from "../ports/agent-runner";
import type { RunEvent } from "../core/run/run-events";
import { escapeCommandData } from "./actions-output";

/** A group keeps its last lines; the transcript files in the run directory keep everything. */
const MAX_LINES = 2000;
const MAX_LINE = 2000;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/g;

function lineOf(event: AgentEvent): string | null {
  switch (event.kind) {
    case "start":
      return `$ ${event.command}`;
    case "text":
      return event.text;
    case "tool":
      return `→ ${event.name} ${event.summary}`;
    case "tool-result":
      return `${event.isError ? "✗" : "←"} ${event.summary}`;
    case "rate-limit":
      return `rate limit: ${event.status}`;
    case "result":
      return `= ${event.outcome} after ${event.turns} turns${event.detail ? `: ${event.detail}` : ""}`;
    default:
      return null;
  }
}

interface Buffer {
  title: string;
  lines: string[];
  dropped: number;
}

export class ActionsTranscriptGroups {
  private readonly tickets = new Map<number, Buffer>();

  constructor(
    private readonly out: (line: string) => void,
    private readonly token: () => string = () => randomBytes(16).toString("hex"),
  ) {}

  readonly onEvent = (e: RunEvent): void => {
    switch (e.kind) {
      case "lane-started":
        if (!this.tickets.has(e.ticket)) this.tickets.set(e.ticket, { title: e.title, lines: [], dropped: 0 });
        return;
      case "stage-started":
        this.add(e.ticket, `── ${e.stage} ──`);
        return;
      case "transcript": {
        const text = lineOf(e.event);
        if (text !== null) for (const line of text.split(/\r?\n|\r/)) this.add(e.ticket, `[${e.stage}] ${line}`);
        return;
      }
      case "ticket-ended":
        this.flush(e.ticket, e.ending);
        return;
      case "run-ended":
        for (const ticket of [...this.tickets.keys()]) this.flush(ticket, "not ended");
        return;
      default:
        return;
    }
  };

  private add(ticket: number, line: string): void {
    let b = this.tickets.get(ticket);
    if (!b) {
      b = { title: "", lines: [], dropped: 0 };
      this.tickets.set(ticket, b);
    }
    const clean = line.replace(CONTROL, "").replace(/\t/g, "  ");
    b.lines.push(clean.length <= MAX_LINE ? clean : `${clean.slice(0, MAX_LINE - 1)}…`);
    if (b.lines.length > MAX_LINES) {
      b.lines.shift();
      b.dropped += 1;
    }
  }

  private flush(ticket: number, ending: string): void {
    const b = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!b || b.lines.length === 0) return;
    let token = this.token();
    // A token the text happens to contain would let that line resume commands: draw another.
    while (b.lines.some((l) => l.includes(token))) token = this.token();
    this.out(`::group::${escapeCommandData(`#${ticket} ${b.title} · ${ending}`)}`);
    this.out(`::stop-commands::${token}`);
    if (b.dropped > 0) this.out(`… ${b.dropped} earlier lines are in the transcript files of the run directory`);
    for (const line of b.lines) this.out(line);
    this.out(`::${token}::`);
    this.out("::endgroup::");
  }
}
