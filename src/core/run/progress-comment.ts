/**
 * The progress comment: one per Ticket, found by its marker and edited in place. It holds one
 * section per Run and one row per Stage. After a Hand-off and a person's relabel the next Run
 * starts a new comment, so the one the person read stays exactly as they read it (docs/endings.md).
 *
 * Rows are written in batches, at the moments a person looks (docs/endings.md, "GitHub writes per
 * ticket"): before a long Stage starts (an agent Stage or the CI wait), when the rows waiting are
 * older than a minute, and at the ticket's ending. A clean ticket costs three edits, not one per Stage.
 */
import type { Tracker, TrackerComment } from "../../ports/tracker";
import type { Log } from "../../ports/log";
import { formatDuration } from "../text/time";
import type { GithubId } from "../schemas/github-id";

export const PROGRESS_MARKER = "<!-- ticket-runner:progress -->";

/** Stages long enough that the rows before them are written first. */
const LONG_STAGES = new Set(["implement", "verify", "fix", "conflict", "ci"]);
/** Rows that waited this long are written with the next row. */
const PROGRESS_STALE_MS = 60_000;

export interface ProgressRow {
  stage: string;
  outcome: string;
  turns: number | null;
  durationMs: number | null;
}

const sectionMarker = (runId: string) => `<!-- ticket-runner:progress-run ${runId} -->`;

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

export function renderSection(runId: string, host: string, rows: ProgressRow[]): string {
  const lines = [
    sectionMarker(runId),
    `#### Run \`${runId}\` on \`${cell(host)}\``,
    "",
    "| Stage | Outcome | Turns | Duration |",
    "|---|---|---|---|",
    ...rows.map((r) => `| ${cell(r.stage)} | ${cell(r.outcome)} | ${r.turns ?? "–"} | ${r.durationMs === null ? "–" : formatDuration(r.durationMs)} |`),
  ];
  return lines.join("\n");
}

/** Replaces this Run's section in `body`, or appends it. Other Runs' sections are kept byte for byte. */
export function withSection(body: string, runId: string, section: string): string {
  const start = body.indexOf(sectionMarker(runId));
  if (start < 0) return `${body.trimEnd()}\n\n${section}\n`;
  const next = body.indexOf("<!-- ticket-runner:progress-run ", start + 1);
  const end = next < 0 ? body.length : next;
  return `${body.slice(0, start)}${section}\n${next < 0 ? "" : "\n"}${body.slice(end)}`.replace(/\n{3,}/g, "\n\n");
}

/** The latest progress comment this user wrote on the issue, if any. */
export function findProgressComment(comments: TrackerComment[], viewer: string): TrackerComment | null {
  const mine = comments.filter((c) => c.author === viewer && c.body.startsWith(PROGRESS_MARKER));
  return mine[mine.length - 1] ?? null;
}

export class ProgressComment {
  private rows: ProgressRow[] = [];
  private commentId: GithubId | null;
  private body: string;
  /** Rows added since the last write, and when the first of them was. */
  private pendingSince: number | null = null;
  /** The writes in order: a second write started while the first is in flight must edit the comment the first created, not create another. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly tracker: Tracker,
    private readonly log: Log,
    private readonly ticket: number,
    private readonly runId: string,
    private readonly host: string,
    existing: TrackerComment | null,
    private readonly now: () => number,
  ) {
    this.commentId = existing?.id ?? null;
    this.body = existing?.body ?? `${PROGRESS_MARKER}\n**Ticket Runner** progress on #${ticket}. This comment is edited in place.`;
  }

  get id(): GithubId | null {
    return this.commentId;
  }

  /** Adds a row; it is written now only when rows have waited a minute (see the top of this file). */
  async add(row: ProgressRow): Promise<void> {
    this.rows.push(row);
    this.pendingSince ??= this.now();
    if (this.now() - this.pendingSince >= PROGRESS_STALE_MS) await this.flush();
  }

  /**
   * A Stage starts: a long one gets the rows before it written. The write goes beside the Stage's
   * start, not before it (ADR 0484): the agent's process starts while the comment is written, and
   * the next write, the ticket's ending included, waits for this one. Never rejects.
   */
  stageStarting(stage: string): Promise<void> {
    return LONG_STAGES.has(stage) ? this.flush() : Promise.resolve();
  }

  /** Writes the rows waiting, if any, after any write in flight. A failed write is logged: progress is a report, not a record. */
  flush(): Promise<void> {
    this.writing = this.writing
      .then(() => this.write())
      .catch((error: unknown) => this.log.warn(`#${this.ticket}: could not write the progress comment`, { error: String(error) }));
    return this.writing;
  }

  private async write(): Promise<void> {
    if (this.pendingSince === null) return;
    this.pendingSince = null;
    const next = withSection(this.body, this.runId, renderSection(this.runId, this.host, this.rows));
    try {
      const written = this.commentId === null ? await this.tracker.createComment(this.ticket, next) : await this.tracker.updateComment(this.commentId, next);
      this.commentId = written.id;
      this.body = next;
    } catch (error) {
      this.pendingSince ??= this.now();
      this.log.warn(`#${this.ticket}: could not write the progress comment`, { error: String(error) });
    }
  }
}
