import type { CommandHandler } from "../run-command";

/**
 * The handler of a command whose capability is not built yet: an honest message, nothing changed.
 * The helper that builds the capability replaces the entry in command-table.ts.
 */
export function notAvailableYet(what: string): CommandHandler {
  return ({ notifier, log }) => {
    log.info("command not available yet", { what });
    notifier.info(`Ticket Runner: ${what} is not available in this version yet. Nothing was changed.`);
  };
}
