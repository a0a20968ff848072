import type * as vscode from "vscode";
import type { TicketRunnerApi } from "./api";
import { activateExtension, type LoadStarted } from "./activate";

/**
 * The bundle's entry, called by loader.ts (dist/extension.js) with the time its first line ran,
 * before this bundle was loaded. Everything is built and wired in activate.ts.
 */
export function activate(context: vscode.ExtensionContext, loadStarted?: LoadStarted): TicketRunnerApi {
  const startedAt = performance.now();
  return activateExtension(context, loadStarted ?? { at: startedAt, cpu: process.cpuUsage() }, startedAt);
}

// Every resource is in context.subscriptions, which VS Code disposes after this returns.
export function deactivate(): void {}
