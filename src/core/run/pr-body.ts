/** Pull request bodies: `Closes #n`, the agent's summary and the verify verdict. */
import { inertMarkdown } from "../inert-text";
import type { GradedCriterion } from "./context";
import { transcriptsWhere } from "./handoff-comment";

const ICON = { met: "✅", unmet: "❌", unverifiable: "❔" } as const;

/** Issue and agent text in a table cell: one line, Markdown-inert (no link, image, mention or closing keyword). */
function cell(text: string): string {
  return inertMarkdown(text.replace(/\r?\n/g, " ").slice(0, 400));
}

export function verdictTable(graded: GradedCriterion[] | null): string {
  if (!graded) return "_Not verified in this Run._";
  if (graded.length === 0) return "_The issue lists no acceptance criteria._";
  return [
    "| Criterion | Verdict | Evidence |",
    "|---|---|---|",
    ...graded.map((g) => `| ${cell(g.criterion.text)} | ${ICON[g.verdict]} ${g.verdict} | ${cell(g.evidence)} |`),
  ].join("\n");
}

export function prBody(input: {
  ticket: number;
  summary: string | null;
  graded: GradedCriterion[] | null;
  transcripts?: string | null;
  draftNote?: string | null;
}): string {
  const parts = [`Closes #${input.ticket}`, ""];
  if (input.draftNote) parts.push(input.draftNote, "");
  if (input.summary) parts.push(inertMarkdown(input.summary.trim()), "");
  parts.push("### Verify", "", verdictTable(input.graded), "");
  if (input.transcripts) parts.push(`Transcripts of the handed-off Stages: ${transcriptsWhere(input.ticket, input.transcripts)}.`, "");
  parts.push("<sub>Opened by Ticket Runner.</sub>");
  return parts.join("\n");
}
