import * as vscode from "vscode";
import type { ExtensionServices } from "./services";
import type { BoardFilter, BoardHandle } from "./board-seam";

/**
 * A stand-in board until src/vscode/board/ exists. It registers the `ticketRunner.board` view so
 * the container, the welcome views and the commands work end to end, and it says plainly that the
 * board is not built yet. The board's own module replaces this file: activate.ts imports
 * `registerBoard` from here, and that import is the only line to change.
 */
export function registerBoard(services: ExtensionServices): BoardHandle {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.TreeDataProvider<PlaceholderRow> = {
    onDidChangeTreeData: changed.event,
    getTreeItem: (row) => row.item,
    getChildren: (row) => (row ? [] : rows(services)),
  };
  const view = vscode.window.createTreeView("ticketRunner.board", { treeDataProvider: provider, showCollapseAll: false });
  services.context.subscriptions.push(changed, view);
  let filter: BoardFilter = "all";
  return {
    view: view as vscode.TreeView<unknown>,
    async refresh() {
      changed.fire();
    },
    setFilter(next) {
      filter = next;
      services.log.debug("board filter", { filter });
      changed.fire();
    },
  };
}

interface PlaceholderRow {
  readonly item: vscode.TreeItem;
}

function rows(services: ExtensionServices): PlaceholderRow[] {
  const keys = services.contextKeys;
  // Empty until signed in with a remote, so the matching welcome view shows instead.
  if (!keys.get("ticketRunner.ready") || !keys.get("ticketRunner.signedIn") || keys.get("ticketRunner.noRemote")) return [];
  const item = new vscode.TreeItem("The board is not built yet in this version.", vscode.TreeItemCollapsibleState.None);
  item.id = "ticketRunner:placeholder";
  item.contextValue = "ticketRunner:placeholder";
  item.iconPath = new vscode.ThemeIcon("info");
  item.tooltip = "Tickets, their claims and Run column appear here once the board is built.";
  return [{ item }];
}
