import * as vscode from "vscode";
import { Refusal } from "../../core/errors";
import type { RunEvent } from "../../core/run/run-events";
import type { Run, StopAnswer } from "../../core/run/run";
import type { RunSummary } from "../../core/run/summary";
import type { Log } from "../../ports/log";
import type { Tracker } from "../../ports/tracker";
import type { ContextKeys } from "../context-keys";
import type { StatusBarItemView } from "../status-bar-item";
import type { BoardRefresh } from "./board-refresh";
import type { RunNotifications } from "./run-notifications";
import type { RunSettings } from "./run-settings";
import { reduceRunView, runStatusOf, startingView, type RunView } from "./run-view";
import type { TranscriptChannels } from "./transcript-channels";
import type { WorktreeFolders } from "./worktree-folders";

/** A Run built for this window (compose.ts), not started yet. */
export interface PreparedRun {
  readonly run: Run;
  /** `owner/name` */
  readonly repo: string;
  /** The Target's clone. */
  readonly root: string;
  readonly agent: string;
  readonly lanes: number;
  readonly narrowedTo: readonly number[] | null;
  readonly tracker: Tracker;
  /** process.env plus the session's token, for masking secrets in what this window shows. */
  readonly redactEnv: Record<string, string | undefined>;
  lanePath(ticket: number): string;
}

export interface WindowRunParts {
  readonly log: Log;
  readonly statusBar: StatusBarItemView;
  readonly contextKeys: ContextKeys;
  readonly transcripts: TranscriptChannels;
  readonly folders: WorktreeFolders;
  readonly notifications: RunNotifications;
  readonly boardRefresh: BoardRefresh;
}

interface Active {
  readonly prepared: PreparedRun;
  readonly settings: RunSettings;
  view: RunView;
  /** Settles when the Run has ended: its summary, or null when it threw (refused, or killed). */
  done: Promise<RunSummary | null>;
}

/**
 * The one Run of this window (one Run per window; one per Target on the Host is the Run lock's
 * job). Fans the Run's events out to the status bar, the transcripts, the worktree folders, the
 * notifications and the board. Closing or reloading the window is a kill: dispose() aborts every
 * Stage and writes nothing to the board; the next Start sweeps and resumes.
 */
export class WindowRun implements vscode.Disposable {
  private active: Active | null = null;
  private last: RunView | null = null;
  private lastPrepared: PreparedRun | null = null;
  private readonly changed = new vscode.EventEmitter<RunView | null>();
  /** Fires whenever the Run's picture changes (not for transcript lines). */
  readonly onDidChange = this.changed.event;

  constructor(private readonly parts: WindowRunParts) {}

  /** The active Run's picture, or the last one's after it ended (null before any Run). */
  view(): RunView | null {
    return this.active?.view ?? this.last;
  }

  isActive(): boolean {
    return this.active !== null;
  }

  /** The worktree of a ticket a Run in this window holds or held. */
  lanePath(ticket: number): string | undefined {
    const p = this.active?.prepared ?? this.lastPrepared;
    return p?.lanePath(ticket);
  }

  /** The Target's clone of the active (or last) Run. */
  root(): string | undefined {
    return (this.active?.prepared ?? this.lastPrepared)?.root;
  }

  /** Resolves when the Run has ended (at once when none is active). */
  async whenEnded(): Promise<RunSummary | null> {
    return this.active ? this.active.done : null;
  }

  /**
   * Starts the Run and resolves once it holds the Run lock (its refusals reject here, so the
   * command shows them); the Run then goes on in the background.
   */
  async start(prepared: PreparedRun, settings: RunSettings): Promise<RunView> {
    if (this.active) throw this.busyRefusal(this.active);
    const { log, transcripts, folders } = this.parts;
    let resolveStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (resolveStarted = resolve));
    const unsubscribe = prepared.run.events.subscribe((event) => {
      this.onEvent(event);
      if (event.kind === "run-started" || event.kind === "run-ended") resolveStarted();
    });
    transcripts.redactWith(prepared.redactEnv);
    folders.begin(settings.worktreeFolders, (n) => prepared.lanePath(n));
    // Active before the Run starts, so not one of its events is missed.
    const active: Active = { prepared, settings, view: startingView(prepared.repo, prepared.lanes, prepared.narrowedTo), done: Promise.resolve(null) };
    this.active = active;
    this.lastPrepared = prepared;
    this.publish();
    let failedEarly: unknown = null;
    const done = prepared.run.start().then(
      (summary) => summary,
      (error: unknown) => {
        failedEarly = error;
        resolveStarted();
        return null;
      },
    );
    active.done = done;
    void done.finally(() => {
      unsubscribe();
      transcripts.flushAll();
      if (this.active === active) this.active = null;
      this.last = active.view.phase === "ended" ? active.view : { ...active.view, phase: "ended" };
      this.publish();
      if (failedEarly && active.view.runId !== null) log.error(`the Run ended unexpectedly: ${String(failedEarly)}`);
    });
    await started;
    if (failedEarly && active.view.runId === null) {
      // Refused before the lock (checkout, config, lock held elsewhere): nothing ran; say why.
      await done;
      throw failedEarly;
    }
    return active.view;
  }

  /** SIGTERM semantics: busy lanes finish, nothing new is claimed. */
  stop(): StopAnswer {
    return this.active ? this.active.prepared.run.stop() : "not-running";
  }

  /** A kill, as when the window goes away: Stages aborted, nothing written to the board. */
  kill(): void {
    if (!this.active) return;
    this.parts.log.warn("killing the Run: the window is closing or reloading. Its claims stay; the next Start resumes them.");
    this.active.prepared.run.kill();
  }

  dispose(): void {
    this.kill();
    this.changed.dispose();
  }

  private busyRefusal(active: Active): Refusal {
    const holding = active.view.busy.map((l) => `#${l.ticket}`).join(" ");
    return new Refusal(
      "run-active",
      `A Run on ${active.prepared.repo} is already active in this window${holding ? ` (working on ${holding})` : ""}. One Run per window: Stop it (Ticket Runner: Stop), or wait for it to finish, then start again (Ticket Runner: Start).`,
    );
  }

  private onEvent(event: RunEvent): void {
    const active = this.active;
    if (!active) return;
    const { transcripts, folders, notifications, boardRefresh, log } = this.parts;
    const next = reduceRunView(active.view, event);
    const changed = next !== active.view;
    active.view = next;
    transcripts.handle(event);
    if (event.kind === "transcript") return;
    folders.handle(event);
    notifications.handle(event, { repo: active.prepared.repo, level: active.settings.notifications, tracker: active.prepared.tracker });
    boardRefresh.poke();
    if (event.kind === "run-ended") for (const line of event.lines) log.info(line);
    if (changed) this.publish();
  }

  private publish(): void {
    const view = this.active?.view ?? null;
    this.parts.statusBar.show(runStatusOf(view));
    void this.parts.contextKeys.set("ticketRunner.running", view !== null && view.phase !== "ended");
    this.changed.fire(this.view());
  }
}
