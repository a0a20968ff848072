/** Where the Actions output goes: annotations on stdout, the Markdown summary into `$GITHUB_STEP_SUMMARY`. */
import { appendFileSync } from "node:fs";
import type { RunSummary } from "../core/run/summary";
import type { Log } from "../ports/log";
import type { RepoRef } from "../ports/tracker";
import { annotations, summaryMarkdown } from "./actions-output";

export function reportToActions(summary: RunSummary, env: NodeJS.ProcessEnv, repo: RepoRef, out: (line: string) => void, log: Log): void {
  for (const line of annotations(summary.rows)) out(line);
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const markdown = summaryMarkdown(summary, { serverUrl: env.GITHUB_SERVER_URL ?? "https://github.com", repo: `${repo.owner}/${repo.repo}` });
  try {
    appendFileSync(file, `${markdown}\n`);
  } catch (e) {
    // The Run's work is done and its summary is on stdout; a step summary that cannot be written is logged, not fatal.
    log.warn("could not write the step summary to GITHUB_STEP_SUMMARY", { error: e instanceof Error ? e.message : String(e) });
  }
}
