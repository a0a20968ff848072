import { join } from "node:path";
import * as vscode from "vscode";
import { windowOctokit } from "../github-client";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";
import { CONFIG_FILE } from "../../app/config-load";
import { initTarget } from "../../app/init-target";
import type { CommandServices } from "../run-command";
import { resolveWindowTarget } from "../run/window-target";

/**
 * Prepare Repository: what `ticket-runner init` does (the same function): the three labels,
 * ticket-runner.json with the Checks guessed from package.json, and the .gitignore lines. The
 * walkthrough's second step. Run twice, it does nothing and says so.
 */
export async function init(services: CommandServices): Promise<void> {
  const target = await resolveWindowTarget(services);
  const tracker = new OctokitTracker(windowOctokit(target.apiUrl, target.token, services.log), target.repo);
  const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Ticket Runner: preparing ${target.name}…` }, () => initTarget(target.folder, tracker));
  for (const line of report.lines) services.log.info(`init ${target.name}: ${line}`);
  const config = vscode.Uri.file(join(target.folder, CONFIG_FILE));
  const message = report.changed
    ? `Ticket Runner: ${target.name} is prepared. Commit ${CONFIG_FILE} and .gitignore before Start (a Run refuses a checkout with uncommitted changes).`
    : `Ticket Runner: ${target.name} is already prepared. Nothing was changed.`;
  services.notifier.info(message, [
    { title: `Open ${CONFIG_FILE}`, run: () => vscode.window.showTextDocument(config) },
    { title: "Show Log", run: () => services.logChannel.show(true) },
  ]);
  void services.board.refresh().catch((e: unknown) => services.log.warn(`board refresh failed: ${String(e)}`));
}
