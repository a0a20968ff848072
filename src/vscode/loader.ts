import { createRequire } from "node:module";
import type * as vscode from "vscode";
import type * as Extension from "./extension";
import type { TicketRunnerApi } from "./api";
import type { BundleLoad } from "./activate";

// dist/extension.js, the file VS Code loads (package.json "main"). It times the load of the
// extension's bundle (dist/extension-bundle.js: read, compiled and run) from its first statement,
// so activationMs counts the bundle's load and activate() together: what is ours of an activation
// (docs/adr/0300-activation-measured-from-the-first-line.md). The host's own share (before this
// line runs, and its extension context between the load and activate()) is measured beside it by
// the in-host suite, against a stub extension.
const started = { at: performance.now(), cpu: process.cpuUsage() };
const bundle = createRequire(__filename)("./extension-bundle.js") as typeof Extension;
const load: BundleLoad = { started, ended: { at: performance.now(), cpu: process.cpuUsage() } };

export function activate(context: vscode.ExtensionContext): TicketRunnerApi {
  return bundle.activate(context, load);
}

export function deactivate(): void {
  bundle.deactivate();
}
