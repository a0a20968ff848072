import * as vscode from "vscode";
import type { Log } from "../../ports/log";
import { toTreeItem } from "./tree-item";
import { childNodes, ERROR_NODE_ID, nodeVm, renderKey, rootNodes, type BoardNode, type BoardSnapshot } from "./view-model";

/**
 * The board's TreeDataProvider. It only reads the snapshot the controller hands it: getChildren
 * and getTreeItem have no side effects, make no request and never throw (a bug shows as a row).
 */
export class BoardTreeProvider implements vscode.TreeDataProvider<BoardNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private snapshot: BoardSnapshot = { phase: "idle", model: null, error: null, fetchedAt: null, filter: "all", repo: null };
  private drawn = "";

  constructor(private readonly log: Log) {}

  /** Called by the controller after every change; the only way the tree's content changes. */
  show(snapshot: BoardSnapshot): void {
    this.snapshot = snapshot;
    let key: string | null = null;
    try {
      key = renderKey(snapshot);
    } catch {
      // Drawing will report the bug as a row: redraw.
    }
    // Redraw only what a person would see change (see renderKey): an open context menu survives.
    if (key !== null && key === this.drawn) return;
    this.drawn = key ?? "";
    this.changed.fire();
  }

  current(): BoardSnapshot {
    return this.snapshot;
  }

  getChildren(node?: BoardNode): BoardNode[] {
    try {
      return node ? childNodes(node) : rootNodes(this.snapshot);
    } catch (e) {
      return [this.failure(e)];
    }
  }

  getTreeItem(node: BoardNode): vscode.TreeItem {
    try {
      return toTreeItem(nodeVm(node));
    } catch (e) {
      return toTreeItem(nodeVm(this.failure(e)));
    }
  }

  getParent(node: BoardNode): BoardNode | undefined {
    if (node.kind !== "ticket") return undefined;
    return rootNodes(this.snapshot).find((n) => n.kind === "section" && n.section.rows.some((r) => r.id === node.row.id));
  }

  dispose(): void {
    this.changed.dispose();
  }

  private failure(e: unknown): BoardNode {
    const message = e instanceof Error ? e.message : String(e);
    this.log.error("board: drawing the tree failed", { error: message });
    return { kind: "error", id: `${ERROR_NODE_ID}:draw`, error: { reason: "internal", message, at: new Date(), retryAt: null }, stale: false, fetchedAt: null };
  }
}
