import * as vscode from "vscode";
import type { TicketRunnerApi } from "../../../src/vscode/api";

export const EXTENSION_ID = "ticket-runner.ticket-runner";

export function extension(): vscode.Extension<TicketRunnerApi> {
  const ext = vscode.extensions.getExtension<TicketRunnerApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded in this extension host`);
  return ext;
}

/** Activates the extension (a no-op when already active) and returns what activate() returned. */
export async function activeApi(): Promise<TicketRunnerApi> {
  const ext = extension();
  return ext.isActive ? ext.exports : ext.activate();
}

interface ContributedCommand {
  command: string;
  title: string;
  category?: string;
  icon?: string;
}

/** The extension's package.json `contributes`, as VS Code loaded it. */
export function contributes(): {
  commands: ContributedCommand[];
  views: Record<string, { id: string; name: string }[]>;
  viewsContainers: { activitybar: { id: string; title: string }[] };
} {
  const pkg = extension().packageJSON as { contributes: ReturnType<typeof contributes> };
  return pkg.contributes;
}
