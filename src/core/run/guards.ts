/**
 * Guards a ticket must pass before it is claimed. A ticket with no unticked `- [ ]` acceptance
 * criteria has nothing verify could grade: it is skipped with ONE comment saying why and how to fix
 * it. The comment carries a marker so no later Run repeats it.
 */
import type { Tracker, TrackerComment } from "../../ports/tracker";
import type { Log } from "../../ports/log";
import { criteriaHold, holdReason } from "./holds";

export const NO_CRITERIA_MARKER = "<!-- ticket-runner:guard no-criteria -->";

function noCriteriaComment(readyLabel: string): string {
  return [
    NO_CRITERIA_MARKER,
    "**Skipped by Ticket Runner:** this issue has no acceptance criteria, so nothing could check the work is done.",
    "",
    "Add the criteria to the issue body as unticked task-list items, one per line, for example:",
    "",
    "```markdown",
    "- [ ] `npm test` passes with a test for the empty input",
    "- [ ] the README documents the new flag",
    "```",
    "",
    `The next Run picks the issue up by itself once it has them (it keeps its \`${readyLabel}\` label). This comment is not repeated.`,
  ].join("\n");
}

export type GuardVerdict = { pass: true } | { pass: false; reason: string; commented: boolean };

/** Checks the criteria guard; comments once (found by marker among `comments`, fetched when not given). */
export async function guardCriteria(
  tracker: Tracker,
  log: Log,
  issue: { number: number; body: string },
  readyLabel: string,
  comments?: TrackerComment[],
): Promise<GuardVerdict> {
  const hold = criteriaHold(issue);
  if (!hold) return { pass: true };
  const reason = holdReason(hold);
  try {
    const existing = comments ?? (await tracker.listComments(issue.number));
    if (existing.some((c) => c.body.startsWith(NO_CRITERIA_MARKER))) return { pass: false, reason, commented: false };
    await tracker.createComment(issue.number, noCriteriaComment(readyLabel));
    return { pass: false, reason, commented: true };
  } catch (error) {
    log.warn(`#${issue.number}: could not leave the no-criteria comment`, { error: String(error) });
    return { pass: false, reason, commented: false };
  }
}
