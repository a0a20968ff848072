/**
 * `ticket-runner run` inside GitHub Actions (`GITHUB_ACTIONS=true`): the Run's summary as Markdown
 * for `$GITHUB_STEP_SUMMARY` and its hand-offs and failures as workflow-command annotations
 * (docs/actions.md). Row text can carry issue titles and agent words: it is made inert before it
 * reaches either.
 */
import type { RunSummary, SummaryRow } from "../core/run/summary";
import { inertMarkdown } from "../core/inert-text";

export interface ActionsContext {
  /** `GITHUB_SERVER_URL`/`GITHUB_REPOSITORY` of the Target, for links. */
  serverUrl: string;
  repo: string;
}

export function inActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === "true";
}

// C0 controls but \n and \r (which are escaped, not dropped), and DEL: a remote text must not start
// a terminal sequence or a workflow command of its own.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000B\u000C\u000E-\u001F\u007F]/g;

/** The message part of a workflow command, per GitHub's workflow-commands doc: % \r \n escaped. */
export function escapeCommandData(text: string): string {
  return text.replace(CONTROL, "").replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property value (`title=`): also `:` and `,`, which end a property. */
export function escapeCommandProperty(text: string): string {
  return escapeCommandData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One annotation per hand-off (warning) and failure (error); other endings are not news. */
export function annotations(rows: readonly SummaryRow[]): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const level = row.ending === "failed" ? "error" : row.ending === "handed-off" ? "warning" : null;
    if (!level) continue;
    const title = escapeCommandProperty(`Ticket #${row.ticket} ${row.ending === "failed" ? "failed" : "handed off"}`);
    out.push(`::${level} title=${title}::${escapeCommandData(row.line)}`);
  }
  return out;
}

function cell(text: string): string {
  return inertMarkdown(text.replace(CONTROL, "").replace(/[\r\n]+/g, " "));
}

/** The step summary: a table of tickets linked to their issue (where a hand-off comment is) and PR. */
export function summaryMarkdown(summary: RunSummary, ctx: ActionsContext): string {
  const base = `${ctx.serverUrl.replace(/\/$/, "")}/${ctx.repo}`;
  const lines = [`### Ticket Runner: Run ${cell(summary.runId)}`, ""];
  if (summary.rows.length) {
    lines.push("| Ticket | Ending | Pull request | What happened |", "|---|---|---|---|");
    for (const row of summary.rows) {
      const pr = /\bPR #(\d+)/.exec(row.line)?.[1];
      const prCell = pr ? `[#${pr}](${base}/pull/${pr})` : "";
      lines.push(`| [#${row.ticket}](${base}/issues/${row.ticket}) | ${row.ending} | ${prCell} | ${cell(row.line)} |`);
    }
    lines.push("");
  }
  for (const line of summary.lines.slice(1 + summary.rows.length)) lines.push(cell(line), "");
  lines.push(`Exit code: ${summary.exitCode}`, "");
  return lines.join("\n");
}
