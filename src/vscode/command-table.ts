import type { CommandEntry } from "./run-command";
import { signIn } from "./commands/sign-in";
import { refreshBoard, setBoardFilter } from "./commands/board";
import { deferred } from "./deferred-load";

/**
 * Every command the extension registers, one line each, all run behind run-command.ts's wrapper.
 * Each id must also be contributed in package.json (the in-host suite checks both directions).
 * Handlers live in src/vscode/commands/ and stay thin: they call the core, the claims code and the Run.
 * `deferred("x")`: the handler is in the deferred bundle (deferred.ts), loaded at its first call (ADR 0301).
 * `needsTrust`: refused in Restricted Mode (ADR 0230); what is left is the read-only board.
 */
export const commandTable: readonly CommandEntry[] = [
  { id: "ticketRunner.start", handler: deferred("start"), needsTrust: "Start" },
  { id: "ticketRunner.stop", handler: deferred("stop") },
  { id: "ticketRunner.claim", handler: deferred("claim"), needsTrust: "Claim" },
  { id: "ticketRunner.startOnTicket", handler: deferred("startOnTicket"), needsTrust: "Start on Ticket" },
  { id: "ticketRunner.takeOver", handler: deferred("takeOver"), needsTrust: "Take Over" },
  { id: "ticketRunner.release", handler: deferred("release"), needsTrust: "Release" },
  { id: "ticketRunner.handOff", handler: deferred("handOff"), needsTrust: "Hand Off" },
  { id: "ticketRunner.handBack", handler: deferred("handBack"), needsTrust: "Hand Back" },
  { id: "ticketRunner.refresh", handler: refreshBoard },
  { id: "ticketRunner.showTranscript", handler: deferred("showTranscript") },
  { id: "ticketRunner.signIn", handler: signIn },
  { id: "ticketRunner.init", handler: deferred("init"), needsTrust: "Prepare Repository" },
  { id: "ticketRunner.openIssue", handler: deferred("openIssue") },
  { id: "ticketRunner.openWorktree", handler: deferred("openWorktree") },
  { id: "ticketRunner.filterMine", handler: setBoardFilter("mine") },
  { id: "ticketRunner.filterAll", handler: setBoardFilter("all") },
];
