/**
 * The look behind `release`'s kept-branch note (docs/adr/0121), shared by both front doors: the CLI
 * prints the note, VS Code's Release shows it with Copy Command. Reads the clone's refs as last
 * fetched: no git network call. Never throws: a clone that cannot be asked gets the plain note.
 */
import { existsSync } from "node:fs";
import { keptBranchGone, keptUnlooked, keptWords, type KeptNote } from "../../core/claims/kept-words";
import type { Host } from "../../ports/host";
import type { Log } from "../../ports/log";
import { GitWorkspace } from "./git-workspace";

export interface KeptBranchQuestion {
  ticket: number;
  branch: string;
  /** The worktree the released run recorded, if any. */
  worktree: string | null;
  /** This front door's clone of the Target, when it has one: used when no worktree names the clone. */
  checkout: string | null;
  /** The base branch (ticket-runner.json's, else the repository's default). */
  base: () => Promise<string>;
  host: Host;
  token?: string;
  env: NodeJS.ProcessEnv | Record<string, string | undefined>;
  log: Log;
}

/** The clone a ticket worktree `<clone>/.worktrees/ticket-<n>` sits in. */
function cloneOfWorktree(worktree: string | null): string | null {
  return (worktree && /^(.*)[\\/]\.worktrees[\\/]ticket-\d+$/.exec(worktree)?.[1]) || null;
}

export async function keptBranchNote(q: KeptBranchQuestion): Promise<KeptNote> {
  // The clone is the one the worktree sits in (release may run elsewhere, with --repo).
  const root = cloneOfWorktree(q.worktree) ?? q.checkout;
  if (!root || !existsSync(root)) return keptUnlooked(q.branch, q.worktree);
  try {
    const ws = new GitWorkspace({ root, host: q.host, token: q.token, env: q.env });
    const report = await ws.leftBranch(q.ticket, q.branch, await q.base());
    return report ? keptWords(q.branch, report) : keptBranchGone(q.branch, root);
  } catch (error) {
    q.log.debug("could not look at the kept branch", { branch: q.branch, error: String(error) });
    return keptUnlooked(q.branch, q.worktree);
  }
}
