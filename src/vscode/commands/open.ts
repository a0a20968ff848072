import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import * as vscode from "vscode";
import { Refusal } from "../../core/errors";
import { findTarget } from "../board/target";
import type { CommandServices } from "../run-command";
import { requireTicket, rowFromArgs, ticketFromArgs } from "../run/ticket-args";
import { replayTranscript } from "../run/transcript-replay";
import { worktreeFolderName } from "../run/worktree-policy";
import { resolveWindowTarget } from "../run/window-target";
import { windowOctokit } from "../github-client";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";

/** The Target's clone without signing in: the Run's, else the first open clone on the API. */
async function targetFolder(services: CommandServices): Promise<string | null> {
  const root = services.runs.windowRun.root();
  if (root) return root;
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  const found = await findTarget(
    folders.filter((f) => !f.includes(`${sep}.worktrees${sep}`)),
    services.connection.settings().apiUrl,
  );
  return found?.folder ?? null;
}

/** Show Transcript: the ticket's live output channel, or the newest transcript on this Host replayed into one. */
export async function showTranscript(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = requireTicket(args, "Show Transcript", "the status bar's tooltip");
  const { transcripts } = services.runs;
  if (transcripts.show(n)) return;
  const root = await targetFolder(services);
  const replay = root ? await replayTranscript(root, n) : null;
  if (!replay) {
    services.notifier.info(`Ticket Runner: there is no transcript of #${n} on this Host yet. It appears when a Run here starts a Stage on it.`);
    return;
  }
  transcripts.replay(n, replay.lines);
  transcripts.show(n);
}

/** Open Worktree: as a folder of this window when that is safe (a workspace file), else in a new window. */
export async function openWorktree(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = requireTicket(args, "Open Worktree", "the status bar's tooltip");
  const row = rowFromArgs(args);
  const root = await targetFolder(services);
  const candidates = [row.worktree ?? undefined, services.runs.windowRun.lanePath(n), root ? join(root, ".worktrees", `ticket-${n}`) : undefined];
  const path = candidates.find((p): p is string => !!p && existsSync(p));
  if (!path) {
    services.notifier.info(`Ticket Runner: #${n} has no worktree on this Host. A Run (or Start on Ticket) cuts one at .worktrees/ticket-${n}.`);
    return;
  }
  const title = row.title ?? services.runs.windowRun.view()?.busy.find((l) => l.ticket === n)?.title ?? "";
  await services.runs.folders.openByHand(n, path, worktreeFolderName(n, title));
}

/** The repository's web address for an API root: github.com, GitHub Enterprise (`/api/v3`), or the sandbox (same origin). */
function webUrlFor(apiUrl: string, owner: string, repo: string): string {
  const api = apiUrl.replace(/\/+$/, "");
  const web = api === "https://api.github.com" ? "https://github.com" : api.replace(/\/api\/v3$/, "");
  return `${web}/${owner}/${repo}`;
}

/** Open Issue: the ticket on GitHub; without a ticket (the Board's welcome), the repository's issues. */
export async function openIssue(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = ticketFromArgs(args);
  const known = rowFromArgs(args).issueUrl;
  if (known) {
    await services.links.open(known);
    return;
  }
  const target = await resolveWindowTarget(services);
  if (n === undefined) {
    await services.links.open(`${webUrlFor(target.apiUrl, target.repo.owner, target.repo.repo)}/issues`);
    return;
  }
  const tracker = new OctokitTracker(windowOctokit(target.apiUrl, target.token, services.log), target.repo);
  const issue = await tracker.getIssue(n);
  if (!issue) throw new Refusal("not-open", `${target.name}#${n} does not exist, or you cannot see it.`);
  await services.links.open(issue.url);
}
