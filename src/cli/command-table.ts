import type { CliCommand } from "./command";
import { versionCommand } from "./commands/version";
import { unlockCommand } from "./commands/unlock";

/** Every CLI command, in the order `ticket-runner help` lists them. Add one line per command. */
export const commandTable: CliCommand[] = [
  versionCommand,
  unlockCommand,
];
