/**
 * One line in the Run's log when a talk with the remote this process can have over smart HTTP
 * (ADR 0470 records, ADR 0476 fetches, ADR 0478 the Lane's push) is left to a git process, and
 * why (ADR 0486): without it a Run that quietly went back to `git fetch`/`git push` (and their
 * processes) cannot be told from one that did not. A reason that comes from the Run's settings
 * (a file remote, a proxy variable, TICKET_RUNNER_GIT_HTTP=git) holds for every call, so it is
 * said once a Run; one that comes from the talk (an HTTP status, an answer that does not read) is
 * said each time. The reason is redacted and names no URL, no header and no variable's value.
 */
import type { RepoContext } from "./repo-context";
import type { SmartHttpClient } from "./smart-http-client";
import { GitHttpFailure, UseGit } from "./smart-http-client";

/** What git is run for instead: the git command the log line names. */
export type GitTalk = "fetch" | "ls-remote" | "push";

export function noteLeftToGit(ctx: RepoContext, talk: GitTalk, why: string, once = false): void {
  if (!ctx.log) return;
  if (once && !ctx.net.firstSaid(`${talk}\n${why}`)) return;
  ctx.log.info(`git ${talk} instead of smart HTTP from the Run's process: ${ctx.git.redact(why)}`, { talk });
}

/** The Run's smart HTTP client, or null (said in the log, once a Run): git talks to the remote. */
export async function smartHttpFor(ctx: RepoContext, talk: GitTalk): Promise<SmartHttpClient | null> {
  const choice = await ctx.net.smartHttpOrWhy();
  if ("client" in choice) return choice.client;
  noteLeftToGit(ctx, talk, choice.why, true);
  return null;
}

/**
 * For an error a talk over smart HTTP threw: null, said in the log, when git should take the call
 * over (UseGit, or with `httpErrors` an HTTP failure git is to meet in its own words); else it is
 * thrown on.
 */
export function leftToGit(ctx: RepoContext, talk: GitTalk, e: unknown, httpErrors = false): null {
  if (e instanceof UseGit) {
    if (e.sticky) ctx.net.httpFailed();
    noteLeftToGit(ctx, talk, e.message);
    return null;
  }
  if (httpErrors && e instanceof GitHttpFailure) {
    noteLeftToGit(ctx, talk, e.status === null ? `no answer from the remote (${e.reason})` : `HTTP ${e.status}`);
    return null;
  }
  throw e;
}
