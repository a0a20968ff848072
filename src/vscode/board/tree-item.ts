import * as vscode from "vscode";
import type { IconSpec } from "./markers";
import type { NodeVm } from "./view-model";

const COLLAPSE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

function themeIcon(icon: IconSpec): vscode.ThemeIcon {
  return icon.color ? new vscode.ThemeIcon(icon.id, new vscode.ThemeColor(icon.color)) : new vscode.ThemeIcon(icon.id);
}

/** A view-model as VS Code's TreeItem. Tooltips never allow HTML; command links only when listed. */
export function toTreeItem(vm: NodeVm): vscode.TreeItem {
  const item = new vscode.TreeItem(vm.label, COLLAPSE[vm.collapsible]);
  item.id = vm.id;
  item.contextValue = vm.contextValue;
  if (vm.description !== undefined) item.description = vm.description;
  if (vm.icon) item.iconPath = themeIcon(vm.icon);
  if (vm.tooltip) {
    const md = new vscode.MarkdownString(vm.tooltip.markdown, false);
    md.supportHtml = false;
    md.isTrusted = vm.tooltip.trustedCommands.length ? { enabledCommands: vm.tooltip.trustedCommands } : false;
    item.tooltip = md;
  }
  if (vm.command) item.command = { command: vm.command.id, title: vm.command.title, arguments: vm.command.args };
  return item;
}
