import type { CommandEntry } from "./run-command";
import { notAvailableYet } from "./commands/not-available";
import { signIn } from "./commands/sign-in";
import { refreshBoard, setBoardFilter } from "./commands/board";

/**
 * Every command the extension registers, one line each, all run behind run-command.ts's wrapper.
 * Each id must also be contributed in package.json (the in-host suite checks both directions).
 * To build a capability, replace its `notAvailableYet(...)` with a handler in src/vscode/commands/.
 */
export const commandTable: readonly CommandEntry[] = [
  { id: "ticketRunner.start", handler: notAvailableYet("Start") },
  { id: "ticketRunner.stop", handler: notAvailableYet("Stop") },
  { id: "ticketRunner.claim", handler: notAvailableYet("Claim") },
  { id: "ticketRunner.startOnTicket", handler: notAvailableYet("Start on Ticket") },
  { id: "ticketRunner.takeOver", handler: notAvailableYet("Take Over") },
  { id: "ticketRunner.release", handler: notAvailableYet("Release") },
  { id: "ticketRunner.handBack", handler: notAvailableYet("Hand Back") },
  { id: "ticketRunner.refresh", handler: refreshBoard },
  { id: "ticketRunner.showTranscript", handler: notAvailableYet("Show Transcript") },
  { id: "ticketRunner.signIn", handler: signIn },
  { id: "ticketRunner.openIssue", handler: notAvailableYet("Open Issue") },
  { id: "ticketRunner.openWorktree", handler: notAvailableYet("Open Worktree") },
  { id: "ticketRunner.filterMine", handler: setBoardFilter("mine") },
  { id: "ticketRunner.filterAll", handler: setBoardFilter("all") },
];
