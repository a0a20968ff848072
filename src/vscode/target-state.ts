import * as vscode from "vscode";
import { isRefusal } from "../core/errors";
import type { ExtensionServices } from "./services";
import { readRemoteUrls } from "../adapters/git/remote-urls";
import { remoteMatchesApi } from "../core/remote-url";

/**
 * Sets the context keys the Board's welcome views read: signed in? does an open folder have a
 * remote on the API we talk to? Makes no network request: a silent session and two file reads.
 */
export async function refreshTargetState(services: ExtensionServices): Promise<void> {
  const { connection, contextKeys, log } = services;
  let signedIn = false;
  let noRemote = true;
  try {
    const settings = connection.settings();
    const session = await connection.session("silent");
    signedIn = session !== undefined;
    noRemote = !(await anyFolderHasRemoteFor(settings.apiUrl));
    log.info("connection", { api: settings.apiUrl, source: session?.source ?? "signed out", account: session?.account, remote: !noRemote });
  } catch (e) {
    // A bad apiUrl: show the signed-out welcome; the next command reports the Refusal with its fix.
    log.warn(`connection check failed: ${e instanceof Error ? e.message : String(e)}`, { reason: isRefusal(e) ? e.reason : undefined });
  }
  await contextKeys.set("ticketRunner.signedIn", signedIn);
  await contextKeys.set("ticketRunner.noRemote", noRemote);
  await contextKeys.set("ticketRunner.ready", true);
}

async function anyFolderHasRemoteFor(apiUrl: string): Promise<boolean> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== "file") continue;
    const urls = await readRemoteUrls(folder.uri.fsPath);
    if (urls.some((u) => remoteMatchesApi(u, apiUrl))) return true;
  }
  return false;
}
