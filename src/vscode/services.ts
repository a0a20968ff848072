import type * as vscode from "vscode";
import type { Log } from "../ports/log";
import type { Connection } from "./connection";
import type { ContextKeys } from "./context-keys";
import type { Notifier } from "./notifier";
import type { StatusBarItemView } from "./status-bar-item";
import type { Links } from "./links";
import type { Picker } from "./quick-picks";

/**
 * Everything activate() builds, handed explicitly to the board and the command handlers.
 * Built once per activation; nothing here is a module-level singleton.
 */
export interface ExtensionServices {
  readonly context: vscode.ExtensionContext;
  readonly log: Log;
  readonly logChannel: vscode.LogOutputChannel;
  readonly notifier: Notifier;
  readonly contextKeys: ContextKeys;
  readonly connection: Connection;
  readonly statusBar: StatusBarItemView;
  readonly links: Links;
  /** QuickPicks go through it, so in-host tests can choose (setPickApi). */
  readonly picker: Picker;
}
