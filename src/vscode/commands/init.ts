import { join } from "node:path";
import { CLI_BUNDLE_FILE } from "../../app/cli-bundle-file";
import * as vscode from "vscode";
import { windowOctokit } from "../github-client";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";
import { WORKFLOW_PATH } from "../../app/actions-workflow";
import { CONFIG_FILE } from "../../app/config-load";
import { CLI_DIR, initActions } from "../../app/init-actions";
import { initTarget } from "../../app/init-target";
import type { CommandServices } from "../run-command";
import { resolveWindowTarget } from "../run/window-target";

export interface PrepareItem extends vscode.QuickPickItem {
  actions: boolean;
}

/** The two ways to prepare: `ticket-runner init`, or `ticket-runner init --actions`. */
const PREPARE_ITEMS: readonly PrepareItem[] = [
  { label: "Prepare Repository", description: "labels, ticket-runner.json, .gitignore", detail: "What `ticket-runner init` does.", actions: false },
  {
    label: "Prepare Repository with the GitHub Actions workflow",
    description: WORKFLOW_PATH,
    detail: "Also writes the workflow `ticket-runner init --actions` writes: Hosts as GitHub Actions jobs (docs/actions.md). Never over an existing file.",
    actions: true,
  },
];

/**
 * Prepare Repository: what `ticket-runner init` does (the same function): the three labels,
 * ticket-runner.json with the Checks guessed from package.json, and the .gitignore lines; with the
 * Actions choice also the workflow, through the same generator as `init --actions`. The
 * walkthrough's second step. Run twice, it does nothing and says so.
 */
export async function init(services: CommandServices): Promise<void> {
  const target = await resolveWindowTarget(services);
  const choice = await services.picker.pick(PREPARE_ITEMS, {
    title: `Ticket Runner: prepare ${target.name}`,
    placeHolder: "With or without the GitHub Actions workflow?",
  });
  if (!choice) return;
  const tracker = new OctokitTracker(windowOctokit(target.apiUrl, target.token, services.log), target.repo);
  const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Ticket Runner: preparing ${target.name}…` }, () =>
    initTarget(target.folder, tracker),
  );
  for (const line of report.lines) services.log.info(`init ${target.name}: ${line}`);
  const workflow = choice.actions ? initActions(target.folder, { cliBundle: join(__dirname, CLI_BUNDLE_FILE) }) : null;
  for (const line of workflow?.lines ?? []) services.log.info(`init ${target.name}: ${line}`);
  const config = vscode.Uri.file(join(target.folder, CONFIG_FILE));
  const changed = report.changed || workflow?.created === true;
  const files = workflow?.created ? `${CONFIG_FILE}, .gitignore, ${WORKFLOW_PATH} and ${CLI_DIR}/` : `${CONFIG_FILE} and .gitignore`;
  const said = changed
    ? `Ticket Runner: ${target.name} is prepared. Commit ${files} before Start (a Run refuses a checkout with uncommitted changes).`
    : `Ticket Runner: ${target.name} is already prepared. Nothing was changed.`;
  const extras = [
    workflow?.created ? "The workflow needs a GitHub App (docs/actions.md)." : "",
    workflow?.needsHostScope ? 'Set "lockScope": "host" in ticket-runner.json: the workflow runs several Hosts at once.' : "",
  ];
  const message = [said, ...extras].filter(Boolean).join(" ");
  const actions = [
    { title: `Open ${CONFIG_FILE}`, run: () => vscode.window.showTextDocument(config) },
    ...(workflow ? [{ title: "Open the workflow", run: () => vscode.window.showTextDocument(vscode.Uri.file(join(target.folder, WORKFLOW_PATH))) }] : []),
    { title: "Show Log", run: () => services.logChannel.show(true) },
  ];
  services.notifier.info(message, actions);
  void services.board.refresh().catch((e: unknown) => services.log.warn(`board refresh failed: ${String(e)}`));
}
