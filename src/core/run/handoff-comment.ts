/**
 * The hand-off comment (docs/endings.md). Its first line is the marker; a later Run that takes the
 * Ticket again marks it as history under the marker, which notifies nobody.
 */
import { inertMarkdown, inertReferences } from "../inert-text";
import { stateRecordRef } from "../schemas/state-file";
import { HANDOFF_MARKER } from "./handoff-marker";

// Its readers import it from here too; the board's notifications import handoff-marker.ts, which has no schemas to load.
export { HANDOFF_MARKER };

export const HANDOFF_HISTORY = "_Taken again by a later Run; this hand-off is history._";

export interface HandoffFacts {
  ticket: number;
  stage: string;
  fixBudgetUsed: boolean;
  line: string;
  branch: string;
  remoteHasBranch: boolean;
  worktree: string | null;
  pullRequest: { number: number; draft: boolean } | null;
  transcripts: string | null;
  evidence: string;
}

/** Where kept transcripts are, with the command that reads them from any clone. */
export function transcriptsWhere(ticket: number, path: string): string {
  const ref = stateRecordRef(ticket);
  return `\`${path}\` in the ticket's State record \`${ref}\` (\`git fetch origin ${ref} && git ls-tree -r FETCH_HEAD ${path}\`)`;
}

export function handoffComment(f: HandoffFacts): string {
  const lines = [HANDOFF_MARKER, `**Handed off.** Failed at **${f.stage}**${f.fixBudgetUsed ? ", after the fix budget was used" : ""}.`, ""];
  lines.push(`- Failure: ${inertMarkdown(f.line)}`);
  const where = [`Branch \`${f.branch}\`${f.remoteHasBranch ? " on the remote" : ""}`];
  if (f.worktree) where.push(`worktree \`${f.worktree}\``);
  if (f.pullRequest) where.push(`PR #${f.pullRequest.number}${f.pullRequest.draft ? " (draft)" : ""}`);
  lines.push(`- ${where.join(" · ")}`);
  if (f.transcripts) lines.push(`- Transcripts: ${transcriptsWhere(f.ticket, f.transcripts)}`);
  lines.push(
    "",
    "To carry on: fix what the failure names (or let it be), then move the label from `ready-for-human` to `ready-for-agent`; the next Run resumes from where this one got to.",
  );
  // Inside the fence Markdown is inert already; mentions and closing keywords are made so too.
  const evidence = inertReferences(f.evidence.trim());
  if (evidence) {
    // A fence longer than any run of backticks inside keeps the evidence from closing it.
    const longest = Math.max(2, ...[...evidence.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = "`".repeat(longest + 1);
    lines.push("", "<details><summary>Evidence</summary>", "", fence, evidence.slice(0, 30_000), fence, "", "</details>");
  }
  return lines.join("\n");
}

/** A hand-off comment that no later Run has marked as history yet. */
export function isCurrentHandoff(body: string): boolean {
  return body.startsWith(HANDOFF_MARKER) && !body.includes(HANDOFF_HISTORY);
}

export function markedAsHistory(body: string): string {
  if (!isCurrentHandoff(body)) return body;
  return body.replace(HANDOFF_MARKER, `${HANDOFF_MARKER}\n${HANDOFF_HISTORY}\n`);
}
