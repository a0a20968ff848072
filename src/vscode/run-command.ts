import * as vscode from "vscode";
import { isFailure, isRefusal } from "../core/errors";
import type { ExtensionServices } from "./services";
import type { BoardHandle } from "./board-seam";
import { refusalActions } from "./refusal-actions";
import type { RunServices } from "./run/run-services";
import { requireWorkspaceTrust } from "./workspace-trust";

/** What a command handler receives: everything activate() built, plus the board and the Run side. */
export interface CommandServices extends ExtensionServices {
  readonly board: BoardHandle;
  readonly runs: RunServices;
}

export type CommandHandler = (services: CommandServices, ...args: unknown[]) => unknown;

export interface CommandEntry {
  readonly id: `ticketRunner.${string}`;
  readonly handler: CommandHandler;
  /** Set on every command that writes to GitHub, runs git in the folder or starts an agent: refused in Restricted Mode, named by this. */
  readonly needsTrust?: string;
}

/**
 * The one wrapper every command runs behind. Handlers stay thin and throw; this catches, logs and
 * tells the person:
 * - a Refusal is a warning whose buttons are its next action (refusal-actions.ts);
 * - a Failure or any other error is an error message with a button to the log;
 * - a cancellation (the person dismissed a prompt) is silent.
 * The command resolves to the handler's result, or undefined when it threw, and never rejects:
 * the message is the report.
 */
export function runCommand(services: CommandServices, entry: CommandEntry): (...args: unknown[]) => Promise<unknown> {
  return async (...args: unknown[]) => {
    const started = performance.now();
    services.log.debug("command", { id: entry.id });
    try {
      if (entry.needsTrust) requireWorkspaceTrust(entry.needsTrust);
      const result = await entry.handler(services, ...args);
      services.log.debug("command done", { id: entry.id, ms: Math.round(performance.now() - started) });
      return result;
    } catch (e) {
      report(services, entry.id, e, args);
      return undefined;
    }
  };
}

function report(services: CommandServices, id: string, e: unknown, args: readonly unknown[]): void {
  const { log, notifier, logChannel } = services;
  if (e instanceof vscode.CancellationError) {
    log.info("command cancelled", { id });
    return;
  }
  if (isRefusal(e)) {
    log.warn(`refused: ${e.message}`, { id, reason: e.reason, link: e.details.link, next: e.details.next });
    notifier.warn(
      e.message,
      refusalActions(e, id, args, (url) => services.links.open(url)),
    );
    return;
  }
  const showLog = { title: "Show Log", run: () => logChannel.show(true) };
  if (isFailure(e)) {
    log.error(`failed: ${e.message}`, { id, reason: e.reason, cause: e.cause === undefined ? undefined : String(e.cause) });
    notifier.error(e.message, [showLog]);
    return;
  }
  const message = e instanceof Error ? e.message : String(e);
  log.error(`unexpected error: ${message}`, { id, stack: e instanceof Error ? e.stack : undefined });
  notifier.error(`Ticket Runner: ${id.replace("ticketRunner.", "")} failed unexpectedly: ${message}`, [showLog]);
}

/** Registers every entry behind the wrapper; each registration goes into context.subscriptions. */
export function registerCommands(services: CommandServices, table: readonly CommandEntry[]): void {
  for (const entry of table) {
    services.context.subscriptions.push(vscode.commands.registerCommand(entry.id, runCommand(services, entry)));
  }
}
