/**
 * The tickets a person may start one narrowed Run on, each with what would stop that Run, read
 * with the Run's own rules (holds.ts) and no side effects (no comment, label or claim). A bounded
 * number of requests:
 *
 *   ceil(N / 100) listing pages
 *   + per checked ticket that passes the label checks: one page of issue events (labelActors),
 *     then, when its label is trusted, one GraphQL query (openBlockers)
 *   + one permission read per distinct labeller (cached for this read)
 *
 * so at most ceil(N/100) + 3 x min(N, max) for issues with under 100 events each; the criteria come
 * from the listed body (free). Tickets beyond `max` (lowest numbers are checked first) are returned
 * unchecked: the Run still checks them when it starts.
 */
import type { Log } from "../../ports/log";
import type { Tracker, TrackerIssue } from "../../ports/tracker";
import type { Config } from "../schemas/config";
import { errorText } from "./context";
import { readyLabelCheck, startHold, type Hold } from "./holds";

export interface TicketChoice {
  issue: TrackerIssue;
  /** What a narrowed Run would skip it for; null: a Run would take it. */
  hold: Hold | null;
  /** Set when the tracker could not be asked: whether a Run would take it is unknown. */
  error: string | null;
}

export interface TicketChoices {
  /** Tickets a narrowed Run would take, lowest number first. */
  startable: TicketChoice[];
  /** Tickets a narrowed Run would skip (or that could not be checked), lowest number first. */
  skipped: TicketChoice[];
  /** Beyond `max`: listed, not checked. */
  unchecked: TrackerIssue[];
}

export interface ChoiceOptions {
  /** How many tickets (lowest numbers first) are checked. */
  max?: number;
  /** How many tickets are checked at once. */
  concurrency?: number;
  /** Called after each check, for a progress bar. */
  progress?: (done: number, total: number) => void;
}

export const MAX_CHECKED = 30;
const CONCURRENCY = 4;

export async function readTicketChoices(tracker: Tracker, config: Config, log: Log, options: ChoiceOptions = {}): Promise<TicketChoices> {
  const max = Math.max(0, options.max ?? MAX_CHECKED);
  const listed = (await tracker.listOpenIssues([config.labels.ready])).sort((a, b) => a.number - b.number);
  const toCheck = listed.slice(0, max);
  const check = readyLabelCheck(tracker, config.labels.ready, log);
  const results: TicketChoice[] = new Array<TicketChoice>(toCheck.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < toCheck.length; i = next++) {
      const issue = toCheck[i]!;
      try {
        results[i] = { issue, hold: await startHold(tracker, config, check, issue), error: null };
      } catch (error) {
        log.warn(`#${issue.number}: could not check whether a Run would take it`, { error: errorText(error) });
        results[i] = { issue, hold: null, error: errorText(error) };
      }
      options.progress?.(++done, toCheck.length);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? CONCURRENCY, toCheck.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return {
    startable: results.filter((c) => c.hold === null && c.error === null),
    skipped: results.filter((c) => c.hold !== null || c.error !== null),
    unchecked: listed.slice(max),
  };
}
