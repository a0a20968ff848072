import type * as vscode from "vscode";
import type { TicketRunnerApi } from "./api";
import { activateExtension, type BundleLoad } from "./activate";

/**
 * The bundle's entry, called by loader.ts (dist/extension.js) with how long this bundle took to
 * load. Everything is built and wired in activate.ts.
 */
export function activate(context: vscode.ExtensionContext, load?: BundleLoad): TicketRunnerApi {
  const started = { at: performance.now(), cpu: process.cpuUsage() };
  return activateExtension(context, load ?? { started, ended: started }, started);
}

// Every resource is in context.subscriptions, which VS Code disposes after this returns.
export function deactivate(): void {}
