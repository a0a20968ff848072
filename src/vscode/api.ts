import type * as vscode from "vscode";
import type { BoardHandle } from "./board-seam";
import type { Notice, Notifier } from "./notifier";
import type { Links } from "./links";
import type { Picker } from "./quick-picks";
import type { RunServices } from "./run/run-services";
import type { StatusBarView } from "./status-bar";

/**
 * What `activate()` returns (`vscode.extensions.getExtension(...).exports`). The in-host tests use
 * it to look inside; nothing else depends on it, so it may grow as tests need.
 */
export interface TicketRunnerApi {
  /** Ours of the activation (ADR 0300): bundleLoadMs + activateBodyMs, not the host's work between them. */
  readonly activationMs: number;
  /** The extension host's CPU time over the same two spans (process.cpuUsage): ours, whatever else the machine runs. */
  readonly activationCpuMs: number;
  /** From the first line of dist/extension.js to the bundle's return from require(): read, compiled and run. */
  readonly bundleLoadMs: number;
  /** Milliseconds from the first line of activate() to its end. */
  readonly activateBodyMs: number;
  readonly logChannel: vscode.LogOutputChannel;
  readonly board: BoardHandle;
  /** The last notifications shown (newest last), so tests can check messages and their buttons. */
  readonly notices: readonly Notice[];
  /** The value of one of our context keys, as last set. */
  contextKey(key: string): unknown;
  /** The Run side: the window's Run, the transcript channels, the worktree folders. */
  readonly runs: RunServices;
  /** Tests replace its message API (setMessageApi) to answer questions and press buttons. */
  readonly notifier: Notifier;
  /** Tests replace its opener (setOpener) to capture the URLs a button opens. */
  readonly links: Links;
  /** Tests replace its pick API (setPickApi) to see a QuickPick's items and choose one. */
  readonly picker: Picker;
  /** What the status-bar item shows now. */
  statusBar(): StatusBarView;
}
