import type * as vscode from "vscode";
import type { TicketRunnerApi } from "./api";
import { activateExtension } from "./activate";

/**
 * VS Code's entry point. Everything is built and wired in activate.ts; this file only takes the
 * start time so activation can be measured from the first line that runs.
 */
export function activate(context: vscode.ExtensionContext): TicketRunnerApi {
  return activateExtension(context, performance.now());
}

// Every resource is in context.subscriptions, which VS Code disposes after this returns.
export function deactivate(): void {}
