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
 * `needsTrust`: refused in Restricted Mode (ADR 0230); what is left is the read-only board.
 */
export const commandTable: readonly CommandEntry[] = [
  { id: "ticketRunner.start", handler: start, needsTrust: "Start" },
  { id: "ticketRunner.stop", handler: stop },
  { id: "ticketRunner.claim", handler: claim, needsTrust: "Claim" },
  { id: "ticketRunner.startOnTicket", handler: startOnTicket, needsTrust: "Start on Ticket" },
  { id: "ticketRunner.takeOver", handler: takeOver, needsTrust: "Take Over" },
  { id: "ticketRunner.release", handler: release, needsTrust: "Release" },
  { id: "ticketRunner.handOff", handler: handOff, needsTrust: "Hand Off" },
  { id: "ticketRunner.handBack", handler: handBack, needsTrust: "Hand Back" },
  { id: "ticketRunner.refresh", handler: refreshBoard },
  { id: "ticketRunner.showTranscript", handler: showTranscript },
  { id: "ticketRunner.signIn", handler: signIn },
  { id: "ticketRunner.init", handler: init, needsTrust: "Prepare Repository" },
  { id: "ticketRunner.openIssue", handler: openIssue },
  { id: "ticketRunner.openWorktree", handler: openWorktree },
  { id: "ticketRunner.filterMine", handler: setBoardFilter("mine") },
  { id: "ticketRunner.filterAll", handler: setBoardFilter("all") },
];
