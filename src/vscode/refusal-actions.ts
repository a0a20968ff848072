import * as vscode from "vscode";
import type { Refusal } from "../core/errors";
import type { NoticeAction } from "./notifier";
import { MANAGE_TRUST_COMMAND } from "./workspace-trust";

/** Commands after which a claim refusal can offer Take Over (never offered unattended). */
const OFFERS_TAKE_OVER = new Set(["ticketRunner.claim", "ticketRunner.startOnTicket"]);

/**
 * The buttons a refusal's warning carries: its next action first. Branches on `reason` and on the
 * details the refusal carries, never on message text. At most three, as VS Code shows no more.
 */
export function refusalActions(
  refusal: Refusal,
  commandId: string,
  args: readonly unknown[],
  open: (url: string) => unknown = (url) => vscode.env.openExternal(vscode.Uri.parse(url, true)),
): NoticeAction[] {
  const actions: NoticeAction[] = [];
  const { link, next, path } = refusal.details;
  const claimed = refusal.reason === "claimed-elsewhere" || refusal.reason === "claimed-locally";

  if (link) {
    const title = claimed ? "Open the Claiming Comment" : refusal.reason === "lock-held" ? "Open the Lock" : "Open Link";
    actions.push({ title, run: () => open(link) });
  }
  if (claimed && OFFERS_TAKE_OVER.has(commandId)) {
    actions.push({ title: "Take Over…", run: () => vscode.commands.executeCommand("ticketRunner.takeOver", ...args) });
  }
  if (refusal.reason === "run-active") {
    actions.push({ title: "Stop the Run", run: () => vscode.commands.executeCommand("ticketRunner.stop") });
  }
  if (refusal.reason === "untrusted-workspace") {
    actions.push({ title: "Manage Workspace Trust", run: () => vscode.commands.executeCommand(MANAGE_TRUST_COMMAND) });
  }
  if (refusal.reason === "bad-config") {
    actions.push({ title: "Open Settings", run: () => vscode.commands.executeCommand("workbench.action.openSettings", "ticketRunner") });
  }
  if (next) {
    actions.push({ title: "Copy Command", run: () => vscode.env.clipboard.writeText(next) });
  }
  if (path && actions.length < 3) {
    actions.push({ title: "Copy Path", run: () => vscode.env.clipboard.writeText(path) });
  }
  return actions.slice(0, 3);
}
