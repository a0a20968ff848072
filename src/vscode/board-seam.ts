import type * as vscode from "vscode";

export type BoardFilter = "mine" | "all";

/**
 * The seam between the extension frame and the board. `activate()` calls a `registerBoard`
 * function once; it registers the `ticketRunner.board` tree view, pushes its disposables into
 * `services.context.subscriptions`, and returns this handle for the commands to use
 * (src/vscode/board/register.ts).
 */
export interface BoardHandle {
  readonly view: vscode.TreeView<unknown>;
  /** Re-reads what the board shows. Rejects with a Refusal or Failure the command wrapper reports. */
  refresh(): Promise<void>;
  setFilter(filter: BoardFilter): void;
}
