import type { CommandEntry } from "./run-command";
import { start, startOnTicket, stop } from "./commands/run";
import { claim, handBack, handOff, release, takeOver } from "./commands/claims";
import { openIssue, openWorktree, showTranscript } from "./commands/open";
import { signIn } from "./commands/sign-in";
import { init } from "./commands/init";
import { refreshBoard, setBoardFilter } from "./commands/board";

/**
 * Every command the extension registers, one line each, all run behind run-command.ts's wrapper.
 * Each id must also be contributed in package.json (the in-host suite checks both directions).
 * Handlers live in src/vscode/commands/ and stay thin: they call the core, the claims code and the Run.
 */
export const commandTable: readonly CommandEntry[] = [
  { id: "ticketRunner.start", handler: start },
  { id: "ticketRunner.stop", handler: stop },
  { id: "ticketRunner.claim", handler: claim },
  { id: "ticketRunner.startOnTicket", handler: startOnTicket },
  { id: "ticketRunner.takeOver", handler: takeOver },
  { id: "ticketRunner.release", handler: release },
  { id: "ticketRunner.handOff", handler: handOff },
  { id: "ticketRunner.handBack", handler: handBack },
  { id: "ticketRunner.refresh", handler: refreshBoard },
  { id: "ticketRunner.showTranscript", handler: showTranscript },
  { id: "ticketRunner.signIn", handler: signIn },
  { id: "ticketRunner.init", handler: init },
  { id: "ticketRunner.openIssue", handler: openIssue },
  { id: "ticketRunner.openWorktree", handler: openWorktree },
  { id: "ticketRunner.filterMine", handler: setBoardFilter("mine") },
  { id: "ticketRunner.filterAll", handler: setBoardFilter("all") },
];
