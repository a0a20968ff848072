import * as vscode from "vscode";
import { renderStatusBar, type RunStatus } from "./status-bar";

/** The thin applier: one StatusBarItem, set from renderStatusBar's output and nothing else. */
export class StatusBarItemView implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("ticketRunner.status", vscode.StatusBarAlignment.Left, 100);

  constructor() {
    this.item.name = "Ticket Runner";
  }

  show(status: RunStatus): void {
    const view = renderStatusBar(status);
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: ["ticketRunner.stop", "ticketRunner.showTranscript"] };
    this.item.tooltip = tooltip;
    this.item.command = view.command;
    this.item.backgroundColor = view.backgroundColor ? new vscode.ThemeColor(view.backgroundColor) : undefined;
    if (view.visible) this.item.show();
    else this.item.hide();
  }

  dispose(): void {
    this.item.dispose();
  }
}
