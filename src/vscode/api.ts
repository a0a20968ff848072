import type * as vscode from "vscode";
import type { BoardHandle } from "./board-seam";
import type { Notice } from "./notifier";

/**
 * What `activate()` returns (`vscode.extensions.getExtension(...).exports`). The in-host tests use
 * it to look inside; nothing else depends on it, so it may grow as tests need.
 */
export interface TicketRunnerApi {
  /** Milliseconds from the first line of activate() to its end. */
  readonly activationMs: number;
  readonly logChannel: vscode.LogOutputChannel;
  readonly board: BoardHandle;
  /** The last notifications shown (newest last), so tests can check messages and their buttons. */
  readonly notices: readonly Notice[];
  /** The value of one of our context keys, as last set. */
  contextKey(key: string): unknown;
}
