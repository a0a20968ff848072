import * as vscode from "vscode";
import type { BoardHandle } from "../board-seam";
import type { ExtensionServices } from "../services";
import { BoardController } from "./controller";
import { BoardTreeProvider } from "./tree-provider";
import { OPEN_COMMAND } from "./view-model";

/**
 * The board's entry point, called once by activate() through the seam (board-seam.ts). Registers
 * the `ticketRunner.board` tree view and the click command, and returns the controller.
 * Makes no request here: the first refresh comes from activate()'s connection check.
 */
export function registerBoard(services: ExtensionServices): BoardHandle {
  const tree = new BoardTreeProvider(services.log);
  const view = vscode.window.createTreeView("ticketRunner.board", { treeDataProvider: tree, showCollapseAll: true });
  const controller = new BoardController(view as vscode.TreeView<unknown>, tree, services);
  services.context.subscriptions.push(
    tree,
    view,
    controller,
    vscode.commands.registerCommand(OPEN_COMMAND, (url: unknown) => controller.open(url)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("ticketRunner.refreshIntervalSeconds") || e.affectsConfiguration("ticketRunner.runRoot")) {
        void controller.refresh().catch((err: unknown) => services.log.warn(`board: ${err instanceof Error ? err.message : String(err)}`));
      }
    }),
  );
  return controller;
}
