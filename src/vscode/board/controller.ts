import { homedir } from "node:os";
import * as vscode from "vscode";
import type { GitHubBoard } from "../../adapters/github/board-wiring";
import { NodeClock } from "../../adapters/node-clock";
import { NodeHost } from "../../adapters/node-host";
import { defaultRunRoot } from "../../core/claims/run-root-path";
import type { BoardError } from "../../core/board/source-error";
import { isRefusal } from "../../core/errors";
import type { BoardFilter, BoardLabels } from "../../core/board/types";
import type { BoardHandle } from "../board-seam";
import { loadDeferred } from "../deferred-load";
import type { ExtensionServices } from "../services";
import { findTarget } from "./target";
import type { BoardTreeProvider } from "./tree-provider";
import { nextSnapshot, noReadyTickets, type BoardSnapshot } from "./view-model";

/** How a click opens a URL. Tests replace it (setOpener) instead of patching `vscode.env`. */
export type Opener = (uri: vscode.Uri) => Thenable<boolean>;

interface Connected {
  key: string;
  repo: string;
  board: GitHubBoard;
  /** Not fetched yet: the first fetch goes through tick(), which primes the poller's ETags. */
  fresh: boolean;
}

/**
 * Keeps the tree in step with GitHub and this Host: works out the Target and the session, builds
 * the board stack over them, ticks the refresher on the configured interval (conditional polls,
 * free while idle), and hands each new snapshot to the tree. Failures become the error row.
 */
export class BoardController implements BoardHandle {
  private filter: BoardFilter = "all";
  private connected: Connected | null = null;
  /** The Target's ticket-runner.json was refused: the board shows why instead of guessing labels. */
  private configError: { repo: string; error: BoardError } | null = null;
  private unsubscribe: (() => void) | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;
  private opener: Opener = (uri) => vscode.env.openExternal(uri);
  private readonly host = new NodeHost({ env: process.env });
  private readonly clock = new NodeClock();

  constructor(
    readonly view: vscode.TreeView<unknown>,
    readonly tree: BoardTreeProvider,
    private readonly services: ExtensionServices,
  ) {}

  /** The snapshot the tree shows now (for tests and commands). */
  snapshot(): BoardSnapshot {
    return this.tree.current();
  }

  setOpener(opener: Opener): void {
    this.opener = opener;
  }

  /** A ticket click: the lease comment of a claim, the issue otherwise (view-model.ts decides). */
  async open(url: unknown): Promise<void> {
    if (typeof url !== "string" || !/^https?:\/\//.test(url)) return;
    await this.opener(vscode.Uri.parse(url, true));
  }

  setFilter(filter: BoardFilter): void {
    this.filter = filter;
    this.publish();
  }

  /**
   * Re-reads the session and the Target, then refetches. A failed fetch is shown as the error row,
   * not thrown: the row is the report. Only a Refusal (a malformed apiUrl) is thrown to the caller.
   */
  async refresh(): Promise<void> {
    const connected = await this.connect();
    if (!connected) return;
    if (connected.fresh) {
      connected.fresh = false;
      await connected.board.refresher.tick();
    } else {
      await connected.board.refresher.refresh();
    }
    this.schedule();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
  }

  private async connect(): Promise<Connected | null> {
    const { connection, log } = this.services;
    const settings = connection.settings(); // a Refusal for a bad apiUrl goes to the caller
    const session = await connection.session("silent");
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
    const target = session ? await findTarget(folders, settings.apiUrl) : null;
    if (!session || !target) {
      this.configError = null;
      this.disconnect();
      return null;
    }
    const runRootSetting = vscode.workspace.getConfiguration("ticketRunner").get<string>("runRoot")?.trim();
    const runRoot = runRootSetting || defaultRunRoot(process.env, homedir());
    const repo = `${target.repo.owner}/${target.repo.repo}`;
    // GitHub's side of the board (Octokit, the config's schemas) loads here, after activation (ADR 0301).
    const deferred = await loadDeferred();
    const labels = this.labelsOf(target.folder, repo, deferred.boardLabels);
    if (!labels) return null;
    const key = JSON.stringify([settings.apiUrl, session.token, repo, runRoot, labels]);
    if (this.connected?.key === key) return this.connected;
    // Same window, new settings or token: swap the stack without drawing an empty board between.
    this.teardown();
    const board = deferred.createBoardStack({
      apiUrl: settings.apiUrl,
      token: session.token,
      repo: target.repo,
      runRoot,
      labels,
      host: this.host,
      clock: this.clock,
      log,
    });
    this.connected = { key, repo, board, fresh: true };
    this.unsubscribe = board.refresher.onDidChange(() => this.publish());
    log.info("board: connected", { repo, api: settings.apiUrl, runRoot });
    this.publish();
    return this.connected;
  }

  /** The Target's labels; null (and the refusal shown as the error row) when its ticket-runner.json is refused. */
  private labelsOf(folder: string, repo: string, read: (folder: string) => BoardLabels): BoardLabels | null {
    try {
      const labels = read(folder);
      this.configError = null;
      return labels;
    } catch (e) {
      if (!isRefusal(e) || e.reason !== "bad-config") throw e;
      this.services.log.warn(`board: ${e.message}`);
      this.teardown();
      this.configError = { repo, error: { reason: "bad-config", message: e.message, at: this.clock.now(), retryAt: null } };
      this.publish();
      return null;
    }
  }

  /** Signed out, or no Target: the board empties so the matching welcome view shows. */
  private disconnect(): void {
    this.teardown();
    this.publish();
  }

  private teardown(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.connected = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The next idle tick: the setting, stretched by X-Poll-Interval, back-off or a rate-limit reset. */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const seconds = vscode.workspace.getConfiguration("ticketRunner").get<number>("refreshIntervalSeconds") ?? 60;
    const connected = this.connected;
    if (this.disposed || !connected || seconds <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void connected.board.refresher.tick().finally(() => {
        if (this.connected === connected) this.schedule();
      });
    }, connected.board.refresher.nextDelayMs(seconds));
  }

  /** Rebuilds the snapshot (the Run column's times move on) and hands it to the tree. */
  private publish(): void {
    const c = this.connected;
    const view = c?.board.refresher.view(this.filter);
    const refused = this.configError;
    const latest: BoardSnapshot = refused
      ? { phase: "idle", model: null, error: refused.error, fetchedAt: null, filter: this.filter, repo: refused.repo }
      : view
        ? {
            phase: view.loading ? "loading" : view.model ? "ready" : "idle",
            model: view.model,
            error: view.error,
            fetchedAt: view.fetchedAt,
            filter: this.filter,
            repo: c?.repo ?? null,
          }
        : { phase: "idle", model: null, error: null, fetchedAt: null, filter: this.filter, repo: null };
    const snapshot = nextSnapshot(this.tree.current(), latest);
    this.tree.show(snapshot);
    const running = snapshot.model?.runningHere ?? 0;
    this.view.badge = running > 0 ? { value: running, tooltip: `${running} ticket${running === 1 ? "" : "s"} running on this Host` } : undefined;
    this.view.description = snapshot.repo ?? undefined;
    const noTickets = noReadyTickets(snapshot);
    if (noTickets !== null) void this.services.contextKeys.set("ticketRunner.noReadyTickets", noTickets);
  }
}
