import * as vscode from "vscode";
import { Refusal } from "../../core/errors";
import type { CommandServices } from "../run-command";
import { prepareRun } from "../run/prepare-run";
import { APPROVALS_STATE_KEY, consentCovers, startQuestion, withApproval } from "../run/start-confirmation";
import { ticketFromArgs } from "../run/ticket-args";
import { pickStartableTicket } from "../run/start-picker";

/** Ticket Runner: Start — a Run with the configured lanes. */
export async function start(services: CommandServices): Promise<void> {
  await startRun(services, null);
}

/** Ticket Runner: Start on Ticket — a narrowed Run, on a board row's ticket or one picked. */
export async function startOnTicket(services: CommandServices, ...args: unknown[]): Promise<void> {
  const ticket = ticketFromArgs(args) ?? (await pickStartableTicket(services));
  if (ticket === undefined) throw new vscode.CancellationError();
  await startRun(services, [ticket]);
}

async function startRun(services: CommandServices, tickets: number[] | null): Promise<void> {
  const { windowRun } = services.runs;
  // Refused before anything is read: one Run per window.
  if (windowRun.isActive()) throw windowRunBusy(services);
  const prep = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "Ticket Runner: preparing the Run…" }, () =>
    prepareRun(services, tickets),
  );
  const question = startQuestion(prep.consent, prep.readyLabel, tickets);
  const state = services.context.workspaceState;
  // Approvals are keyed by the exact command line: ticket-runner.json comes with the repository.
  if (!consentCovers(state.get(APPROVALS_STATE_KEY), prep.consent)) {
    const answer = await services.notifier.confirm(question.message, question.detail, [question.confirm]);
    if (answer !== question.confirm) throw new vscode.CancellationError();
    await state.update(APPROVALS_STATE_KEY, withApproval(state.get(APPROVALS_STATE_KEY), prep.consent));
  }
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Ticket Runner: starting a Run on ${prep.consent.repo}…` }, () =>
    windowRun.start(prep.prepared, prep.settings),
  );
  services.log.info("Run started", { repo: prep.consent.repo, lanes: prep.consent.lanes, agent: prep.consent.agent, tickets: tickets?.join(",") });
}

function windowRunBusy(services: CommandServices): Refusal {
  const view = services.runs.windowRun.view();
  const holding = view?.busy.map((l) => `#${l.ticket}`).join(" ") ?? "";
  return new Refusal(
    "run-active",
    `A Run on ${view?.repo ?? "this repository"} is already active in this window${holding ? ` (working on ${holding})` : ""}. One Run per window: Stop it, or wait for it to finish, then start again.`,
  );
}

/** Ticket Runner: Stop — graceful, like SIGTERM: busy lanes finish, nothing new is claimed. */
export function stop(services: CommandServices): void {
  const { windowRun } = services.runs;
  const answer = windowRun.stop();
  const view = windowRun.view();
  if (answer === "not-running") {
    services.notifier.info("Ticket Runner: no Run is active in this window. Nothing was changed.");
    return;
  }
  const holding = view?.finishing.map((n) => `#${n}`).join(" ") ?? "";
  if (answer === "already-stopping") {
    services.notifier.info(
      `Ticket Runner: already stopping${holding ? `, finishing ${holding}` : ""}. A second Stop does not kill the Run; closing the window would.`,
    );
    return;
  }
  services.log.info(holding ? `Stop: ${holding} left to finish` : "Stop: nothing left to finish");
}
