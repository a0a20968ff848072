import * as vscode from "vscode";
import { renderStatusBar, TRUSTED_COMMANDS, type RunStatus, type StatusBarView } from "./status-bar";

/** The thin applier: one StatusBarItem, set from renderStatusBar's output and nothing else. */
export class StatusBarItemView implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("ticketRunner.status", vscode.StatusBarAlignment.Left, 100);
  private last: StatusBarView = renderStatusBar({ kind: "idle" });

  constructor() {
    this.item.name = "Ticket Runner";
  }

  /** What is shown now (for tests: VS Code cannot be asked for a status-bar item's text). */
  get current(): StatusBarView {
    return this.last;
  }

  show(status: RunStatus): void {
    const view = renderStatusBar(status);
    this.last = view;
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: [...TRUSTED_COMMANDS] };
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
