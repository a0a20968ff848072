import { existsSync } from "node:fs";
import * as vscode from "vscode";
import type { RunEvent } from "../../core/run/run-events";
import type { Log } from "../../ports/log";
import type { Notifier } from "../notifier";
import { planWorktreeFolder, worktreeFolderName, type FolderPlan, type WorktreeSetting } from "./worktree-policy";

/** How long to wait for VS Code to confirm a folder change before going on without it. */
const CHANGE_TIMEOUT_MS = 10_000;

interface RunFolders {
  readonly plan: FolderPlan;
  lanePath(ticket: number): string;
  titles: Map<number, string>;
  offered: boolean;
}

/**
 * Each ticket's worktree as a workspace folder named `#42 title`, added when its first Stage starts
 * (the worktree exists by then) and removed after its merge, as the setting says. Folders are only
 * added to a window with a workspace file: anywhere else VS Code would restart the extension host,
 * killing the Run (docs/adr/0023-worktree-folders.md). Changes are queued one at a time, because
 * VS Code refuses a second updateWorkspaceFolders before the first has been applied.
 */
export class WorktreeFolders implements vscode.Disposable {
  private run: RunFolders | null = null;
  private queue: Promise<void> = Promise.resolve();
  /** Folders this extension added (path -> ticket); only these are ever removed. */
  private readonly added = new Map<string, number>();
  private readonly opened = new Set<number>();

  constructor(
    private readonly log: Log,
    private readonly notifier: Notifier,
  ) {}

  begin(setting: WorktreeSetting, lanePath: (ticket: number) => string): FolderPlan {
    const plan = planWorktreeFolder(setting, { hasWorkspaceFile: vscode.workspace.workspaceFile !== undefined });
    this.run = { plan, lanePath, titles: new Map(), offered: false };
    this.opened.clear();
    this.log.info("worktree folders", { setting, plan: plan.kind });
    return plan;
  }

  handle(event: RunEvent): void {
    const run = this.run;
    if (!run || run.plan.kind === "none") return;
    if (event.kind === "lane-started") run.titles.set(event.ticket, event.title);
    if (event.kind === "stage-started" && !this.opened.has(event.ticket)) {
      const path = run.lanePath(event.ticket);
      if (!existsSync(path)) return; // not cut yet (or a setup that failed): try at the next Stage
      this.opened.add(event.ticket);
      this.open(run, event.ticket, path);
    }
    if (event.kind === "ticket-ended" && event.ending === "merged" && run.plan.kind === "add" && run.plan.removeAfterMerge) {
      this.enqueue(() => this.remove(event.ticket));
    }
  }

  /**
   * Open Worktree, by a person: a folder of this window when the window has a workspace file
   * (kept: the person asked for it), otherwise a new window, never a restart of this one.
   */
  async openByHand(ticket: number, path: string, name: string): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.some((f) => f.uri.fsPath === path)) {
      await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(path));
      return;
    }
    if (vscode.workspace.workspaceFile === undefined) {
      await vscode.commands.executeCommand("vscode.openFolder", vscode.Uri.file(path), { forceNewWindow: true, noRecentEntry: true });
      return;
    }
    await new Promise<void>((resolve) =>
      this.enqueue(async () => {
        try {
          const now = vscode.workspace.workspaceFolders ?? [];
          if (now.some((f) => f.uri.fsPath === path)) return;
          await this.apply(() => vscode.workspace.updateWorkspaceFolders(now.length, 0, { uri: vscode.Uri.file(path), name }));
          this.log.info("added the worktree folder (Open Worktree)", { ticket, path });
        } finally {
          resolve();
        }
      }),
    );
  }

  /** Paths of the folders this extension added and still shows (for tests and Open Worktree). */
  addedFolders(): string[] {
    return [...this.added.keys()];
  }

  dispose(): void {
    this.run = null;
  }

  private open(run: RunFolders, ticket: number, path: string): void {
    const name = worktreeFolderName(ticket, run.titles.get(ticket) ?? "");
    switch (run.plan.kind) {
      case "add":
        this.enqueue(() => this.add(ticket, path, name));
        return;
      case "new-window":
        void vscode.commands.executeCommand("vscode.openFolder", vscode.Uri.file(path), { forceNewWindow: true, noRecentEntry: true });
        return;
      case "offer":
        if (run.offered) return;
        run.offered = true;
        this.notifier.info(
          `Ticket Runner: ${name} is in ${path}. This window has no workspace file, and adding a folder to it would restart the extension host and kill the Run, so worktrees are not added here. Open a .code-workspace before Start to see them as folders, or set ticketRunner.worktreeFolders to "new-window".`,
          [
            {
              title: "Open in New Window",
              run: () => vscode.commands.executeCommand("vscode.openFolder", vscode.Uri.file(path), { forceNewWindow: true, noRecentEntry: true }),
            },
          ],
        );
        return;
      case "none":
        return;
    }
  }

  private enqueue(change: () => Promise<void>): void {
    this.queue = this.queue.then(change).catch((e: unknown) => this.log.warn(`worktree folder change failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  private async add(ticket: number, path: string, name: string): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.some((f) => f.uri.fsPath === path)) return;
    // Re-checked now: the window's shape may have changed since the Run started.
    if (vscode.workspace.workspaceFile === undefined) return;
    await this.apply(() => vscode.workspace.updateWorkspaceFolders(folders.length, 0, { uri: vscode.Uri.file(path), name }));
    this.added.set(path, ticket);
    this.log.info("added the worktree folder", { ticket, path, name });
  }

  private async remove(ticket: number): Promise<void> {
    const path = [...this.added].find(([, t]) => t === ticket)?.[0];
    if (!path) return;
    this.added.delete(path);
    const folders = vscode.workspace.workspaceFolders ?? [];
    const index = folders.findIndex((f) => f.uri.fsPath === path);
    // Never the first folder: that one is the Target itself, and removing it could reload the window.
    if (index <= 0) return;
    await this.apply(() => vscode.workspace.updateWorkspaceFolders(index, 1));
    this.log.info("removed the worktree folder after the merge", { ticket, path });
  }

  /** Runs one change and waits until VS Code reports it applied (or a deadline passes). */
  private async apply(change: () => boolean): Promise<void> {
    let sub: vscode.Disposable | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const applied = new Promise<void>((resolve) => {
      sub = vscode.workspace.onDidChangeWorkspaceFolders(() => resolve());
      timer = setTimeout(resolve, CHANGE_TIMEOUT_MS);
    });
    try {
      if (!change()) throw new Error("VS Code refused the workspace folder change");
      await applied;
    } finally {
      sub?.dispose();
      if (timer) clearTimeout(timer);
    }
  }
}
