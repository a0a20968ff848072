import * as vscode from "vscode";
import { LineBatcher } from "./transcript-batcher";
import type { RunEvent } from "../../core/run/run-events";
import { redactSecrets } from "../../core/redact";
import { TicketTranscript } from "./transcript-lines";

/** Kept per ticket for tests and for "is there anything to show": the last characters appended. */
const TAIL_CHARS = 64 * 1024;

interface TicketChannel {
  readonly channel: vscode.OutputChannel;
  readonly batcher: LineBatcher;
  transcript: TicketTranscript;
  tail: string;
  appends: number;
  lines: number;
  /** Lines and characters that reached the channel (the rest still wait in the batcher). */
  appendedLines: number;
  appendedChars: number;
}

/**
 * One output channel per ticket, "Ticket Runner #42", fed live from the Run's events. Lines are
 * batched (LineBatcher, ADR 0360: a quiet channel's first line after 50 ms, then at most 4
 * appends a second), so a burst of thousands of agent events costs a few dozen appends, not
 * thousands. The full transcript is on disk too (.ticket-runner/runs/<runId>/<n>/); the channel
 * is for watching.
 */
export class TranscriptChannels implements vscode.Disposable {
  private readonly byTicket = new Map<number, TicketChannel>();

  constructor(private env: Record<string, string | undefined> = process.env) {}

  /** The environment whose secrets are masked; a Run adds its session's token (not in process.env). */
  redactWith(env: Record<string, string | undefined>): void {
    this.env = env;
  }

  /** Routes one Run event to its ticket's channel (creating it at the lane's start). */
  handle(event: RunEvent): void {
    if (!("ticket" in event)) return;
    if (event.kind === "ticket-ended" && event.lane === null) return; // skipped: never ran here
    const entry = this.entry(event.ticket, event.kind === "lane-started");
    const lines = entry.transcript.lines(event);
    if (lines.length === 0) return;
    entry.lines += lines.length;
    entry.batcher.push(lines);
    if (event.kind === "ticket-ended") entry.batcher.flush();
  }

  has(ticket: number): boolean {
    return this.byTicket.has(ticket);
  }

  /** Reveals the ticket's channel; false when this window has none for it. */
  show(ticket: number, preserveFocus = false): boolean {
    const entry = this.byTicket.get(ticket);
    if (!entry) return false;
    entry.batcher.flush();
    entry.channel.show(preserveFocus);
    return true;
  }

  /** Fills a channel from lines read elsewhere (a transcript on disk from an earlier Run). */
  replay(ticket: number, lines: readonly string[]): void {
    const entry = this.entry(ticket, false);
    entry.lines += lines.length;
    entry.batcher.push(lines);
    entry.batcher.flush();
  }

  /** For tests and the bench: what was appended lately; appends, lines pushed, lines and characters appended. */
  stats(ticket: number): { tail: string; appends: number; lines: number; appendedLines: number; appendedChars: number } | undefined {
    const entry = this.byTicket.get(ticket);
    if (!entry) return undefined;
    entry.batcher.flush();
    return { tail: entry.tail, appends: entry.appends, lines: entry.lines, appendedLines: entry.appendedLines, appendedChars: entry.appendedChars };
  }

  flushAll(): void {
    for (const e of this.byTicket.values()) e.batcher.flush();
  }

  dispose(): void {
    for (const e of this.byTicket.values()) {
      e.batcher.dispose();
      e.channel.dispose();
    }
    this.byTicket.clear();
  }

  private entry(ticket: number, freshStart: boolean): TicketChannel {
    const found = this.byTicket.get(ticket);
    if (found) {
      // A new take-up in a later Run: a fresh formatter (Stage context), same channel.
      if (freshStart) found.transcript = new TicketTranscript(ticket);
      return found;
    }
    const channel = vscode.window.createOutputChannel(`Ticket Runner #${ticket}`);
    const created: TicketChannel = {
      channel,
      transcript: new TicketTranscript(ticket),
      tail: "",
      appends: 0,
      lines: 0,
      appendedLines: 0,
      appendedChars: 0,
      batcher: new LineBatcher((text, lines) => {
        // The agents' events are redacted already; the Run's own lines (titles, outcomes) too, again.
        const clean = redactSecrets(text, this.env);
        channel.append(clean);
        created.appends += 1;
        created.appendedLines += lines;
        created.appendedChars += clean.length;
        created.tail = (created.tail + clean).slice(-TAIL_CHARS);
      }),
    };
    this.byTicket.set(ticket, created);
    return created;
  }
}
