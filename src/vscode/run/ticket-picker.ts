import * as vscode from "vscode";
import { windowOctokit } from "../github-client";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";
import { inertLinkedText } from "../../core/inert-text";
import type { ExtensionServices } from "../services";
import { loadConfigOrDefaults } from "../../app/config-load";
import { resolveWindowTarget } from "./window-target";

/** Claim's QuickPick: the open `ready-for-agent` tickets not in progress, lowest number first (one request). Start on Ticket has its own (start-picker.ts). */
export async function pickFrontierTicket(services: ExtensionServices): Promise<number | undefined> {
  const target = await resolveWindowTarget(services);
  const config = loadConfigOrDefaults(target.folder);
  const tracker = new OctokitTracker(windowOctokit(target.apiUrl, target.token, services.log), target.repo);
  const issues = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Ticket Runner: reading the ready tickets" }, () =>
    tracker.listOpenIssues([config.labels.ready]),
  );
  const items = issues
    .filter((i) => !i.labels.includes(config.labels.inProgress))
    .sort((a, b) => a.number - b.number)
    .map((i) => ({ label: `#${i.number}`, description: inertLinkedText(i.title), ticket: i.number }));
  if (items.length === 0) {
    services.notifier.info(`Ticket Runner: no open issue of ${target.name} is labelled ${config.labels.ready} and free. Nothing was started.`);
    return undefined;
  }
  const picked = await services.picker.pick(items, {
    title: `Claim a ticket of ${target.name}`,
    placeHolder: "A person's claim: assigned to you, nothing runs",
    matchOnDescription: true,
  });
  return picked?.ticket;
}
