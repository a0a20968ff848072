import type { CliCommand } from "./command";
import { versionCommand } from "./commands/version";
import { unlockCommand } from "./commands/unlock";
import { claimCommand } from "./commands/claim";
import { startCommand } from "./commands/start";
import { resumeCommand } from "./commands/resume";
import { releaseCommand } from "./commands/release";
import { handBackCommand } from "./commands/hand-back";
import { boardCommand } from "./commands/board";
import { sandboxCommand } from "./commands/sandbox";
import { runCommand } from "./commands/run";
import { stopCommand } from "./commands/stop";
import { initCommand } from "./commands/init";
import { demoCommand } from "./commands/demo";

/** Every CLI command, in the order `ticket-runner help` lists them. Add one line per command. */
export const commandTable: CliCommand[] = [
  versionCommand,
  unlockCommand,
  claimCommand,
  startCommand,
  resumeCommand,
  releaseCommand,
  handBackCommand,
  boardCommand,
  sandboxCommand,
  runCommand,
  stopCommand,
  initCommand,
  demoCommand,
];
