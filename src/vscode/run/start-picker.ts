import * as vscode from "vscode";
import { Failure, Refusal, type RefusalReason } from "../../core/errors";
import { inertLinkedText } from "../../core/inert-text";
import { holdAdvice } from "../../core/run/hold-advice";
import type { Hold } from "../../core/run/holds";
import { MAX_CHECKED, readTicketChoices, type TicketChoice, type TicketChoices } from "../../core/run/ticket-choices";
import type { TrackerIssue } from "../../ports/tracker";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";
import { windowOctokit } from "../github-client";
import type { ExtensionServices } from "../services";
import { loadConfigOrDefaults } from "../../app/config-load";
import { resolveWindowTarget, type WindowTarget } from "./window-target";

/** A row of the Start on Ticket picker; separators carry no ticket. */
export interface StartItem extends vscode.QuickPickItem {
  readonly ticket?: number;
  /** Set on a ticket a narrowed Run would skip (or that could not be checked): choosing it starts nothing. */
  readonly refusal?: Refusal | Failure;
}

export const STARTABLE_HEADING = "Ready to start";
export const SKIPPED_HEADING = "A Run would skip these";
const UNCHECKED_HEADING = `Not checked here (only the lowest ${MAX_CHECKED} are)`;

function separator(label: string): StartItem {
  return { label, kind: vscode.QuickPickItemKind.Separator };
}

function refusalReason(hold: Hold): RefusalReason {
  if (hold.kind === "untrusted") return "untrusted";
  if (hold.kind === "not-open") return "not-open";
  return "not-ready";
}

/** What choosing a held ticket says: what happened, who or what holds it (with its link), the next step. */
function holdRefusal(target: WindowTarget, issue: TrackerIssue, hold: Hold): { reason: string; refusal: Refusal } {
  const advice = holdAdvice(hold, issue, target.name);
  const message = [
    `Ticket Runner: ${target.name}#${issue.number} was not started, as a narrowed Run would skip it: ${advice.reason}. See ${advice.holder.url}.`,
    `Next: ${advice.fix}${advice.command ? ` (\`${advice.command}\`)` : ""}, then Start on Ticket again.`,
  ].join(" ");
  return {
    reason: advice.reason,
    refusal: new Refusal(refusalReason(hold), message, { link: advice.holder.url, ...(advice.command ? { next: advice.command } : {}) }),
  };
}

function skippedItem(target: WindowTarget, c: TicketChoice): StartItem {
  if (c.error !== null || c.hold === null) {
    const error = c.error ?? "unknown";
    return {
      label: `$(warning) #${c.issue.number}`,
      description: inertLinkedText(c.issue.title),
      detail: inertLinkedText(`could not be checked: ${error}`),
      ticket: c.issue.number,
      refusal: new Failure(
        "github",
        `Ticket Runner: could not check whether a Run would take ${target.name}#${c.issue.number} (${error}). Nothing was started. Try Start on Ticket again; Show Log has the details.`,
      ),
    };
  }
  const { reason, refusal } = holdRefusal(target, c.issue, c.hold);
  return {
    label: `${c.hold.kind === "blocked" ? "$(lock)" : "$(circle-slash)"} #${c.issue.number}`,
    description: inertLinkedText(c.issue.title),
    detail: inertLinkedText(reason),
    ticket: c.issue.number,
    refusal,
  };
}

/** The picker's rows: startable first, then the ones a Run would skip, then any not checked; lowest number first in each. */
function startItems(target: WindowTarget, choices: TicketChoices): StartItem[] {
  const items: StartItem[] = [];
  if (choices.startable.length) {
    items.push(separator(STARTABLE_HEADING));
    for (const c of choices.startable) items.push({ label: `$(play) #${c.issue.number}`, description: inertLinkedText(c.issue.title), ticket: c.issue.number });
  }
  if (choices.unchecked.length) {
    items.push(separator(UNCHECKED_HEADING));
    for (const i of choices.unchecked)
      items.push({ label: `$(question) #${i.number}`, description: inertLinkedText(i.title), detail: "the Run checks it when it starts", ticket: i.number });
  }
  if (choices.skipped.length) {
    items.push(separator(SKIPPED_HEADING));
    for (const c of choices.skipped) items.push(skippedItem(target, c));
  }
  return items;
}

/**
 * Start on Ticket's picker: the open ready tickets, read with the Run's own rules (no comment, no
 * label, no claim), so a person is not offered a ticket a narrowed Run would only skip. Those are
 * listed after the startable ones, with why; choosing one starts nothing and says what to do.
 * Requests: see core/run/ticket-choices.ts (at most ceil(N/100) + 3 per checked ticket).
 */
export async function pickStartableTicket(services: ExtensionServices): Promise<number | undefined> {
  const target = await resolveWindowTarget(services);
  const config = loadConfigOrDefaults(target.folder);
  const tracker = new OctokitTracker(windowOctokit(target.apiUrl, target.token, services.log), target.repo);
  const choices = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Ticket Runner: reading the ready tickets of ${target.name}…` },
    (progress) =>
      readTicketChoices(tracker, config, services.log, {
        progress: (done, total) => progress.report({ message: `checked ${done} of ${total}`, increment: 100 / total }),
      }),
  );
  services.log.info("Start on Ticket: read the ready tickets", {
    startable: choices.startable.length,
    skipped: choices.skipped.length,
    unchecked: choices.unchecked.length,
  });
  const items = startItems(target, choices);
  if (items.length === 0) {
    services.notifier.info(`Ticket Runner: no open issue of ${target.name} is labelled ${config.labels.ready}. Nothing was started.`);
    return undefined;
  }
  const picked = await services.picker.pick(items, {
    title: `Start on a ticket of ${target.name}`,
    placeHolder: choices.startable.length ? "A narrowed Run works on this ticket only" : "No ticket is ready to start: each says why a Run would skip it",
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked?.refusal) throw picked.refusal;
  return picked?.ticket;
}
