import type { CommandHandler } from "./run-command";
import { claim, handBack, handOff, release, takeOver } from "./commands/claims";
import { init } from "./commands/init";
import { openIssue, openWorktree, showTranscript } from "./commands/open";
import { start, startOnTicket, stop } from "./commands/run";
import { boardLabels, createBoardStack } from "./board/github-side";

/**
 * The extension's second bundle, dist/extension-deferred.js (ADR 0301): what activation does not
 * need and the first command or the first board refresh loads (through deferred-load.ts), since it
 * holds Octokit, secretlint, zod, the git adapters and the claims core. The command table names
 * these handlers by key; the Run itself is a third bundle (dist/run-machinery.js, ADR 0266).
 */
export const deferredHandlers = {
  start,
  startOnTicket,
  stop,
  claim,
  takeOver,
  release,
  handOff,
  handBack,
  showTranscript,
  openWorktree,
  openIssue,
  init,
} satisfies Record<string, CommandHandler>;

export const deferredBoard = { boardLabels, createBoardStack };
