import * as vscode from "vscode";
import { windowOctokit } from "../github-client";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";
import type { ExtensionServices } from "../services";
import { loadTargetConfig } from "./target-config";
import { resolveWindowTarget } from "./window-target";

/** A QuickPick of the open `ready-for-agent` tickets, lowest number first (one request). */
export async function pickFrontierTicket(services: ExtensionServices): Promise<number | undefined> {
  const target = await resolveWindowTarget(services);
  const config = loadTargetConfig(target.folder);
  const tracker = new OctokitTracker(windowOctokit(target.apiUrl, target.token, services.log), target.repo);
  const issues = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Ticket Runner: reading the ready tickets" }, () =>
    tracker.listOpenIssues([config.labels.ready]),
  );
  const items = issues
    .filter((i) => !i.labels.includes(config.labels.inProgress))
    .sort((a, b) => a.number - b.number)
    .map((i) => ({ label: `#${i.number}`, description: i.title, ticket: i.number }));
  if (items.length === 0) {
    services.notifier.info(`Ticket Runner: no open issue of ${target.name} is labelled ${config.labels.ready} and free. Nothing was started.`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: `Start on a ticket of ${target.name}`, placeHolder: "A narrowed Run works on this ticket only", matchOnDescription: true });
  return picked?.ticket;
}
