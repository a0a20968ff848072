/* eslint-disable @typescript-eslint/no-require-imports -- a command's module is evaluated only when it is asked for (ADR 0440) */
import type { CliCommand } from "./command";
import type * as versionModule from "./commands/version";
import type * as unlockModule from "./commands/unlock";
import type * as claimModule from "./commands/claim";
import type * as startModule from "./commands/start";
import type * as resumeModule from "./commands/resume";
import type * as releaseModule from "./commands/release";
import type * as handBackModule from "./commands/hand-back";
import type * as boardModule from "./commands/board";
import type * as sandboxModule from "./commands/sandbox";
import type * as runModule from "./commands/run";
import type * as stopModule from "./commands/stop";
import type * as initModule from "./commands/init";
import type * as demoModule from "./commands/demo";

/**
 * One row of `ticket-runner help`: what help needs at once (name, summary), and the command itself
 * behind a `require()` in `load`. esbuild keeps dist/cli.js one self-contained file (ADR 0282) and
 * evaluates a required module only when that `require()` runs (ADR 0440): `--version` and `help`
 * run none of the Run's modules, and `run` none of the sandbox's. `require`, not `import()`: the
 * unit tests' loader (tsx/cjs) hooks `require` only.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): CliCommand;
}

/** Every CLI command, in the order `ticket-runner help` lists them. Add one line per command. */
export const commandTable: readonly CommandEntry[] = [
  { name: "version", summary: "print the version", load: () => (require("./commands/version") as typeof versionModule).versionCommand },
  {
    name: "unlock",
    summary: "free a Run lock a vanished Host left behind",
    load: () => (require("./commands/unlock") as typeof unlockModule).unlockCommand,
  },
  {
    name: "claim",
    summary: "claim a ticket for yourself (a person's claim)",
    load: () => (require("./commands/claim") as typeof claimModule).claimCommand,
  },
  {
    name: "start",
    summary: "claim a ticket and cut its worktree",
    load: () => (require("./commands/start") as typeof startModule).startCommand,
  },
  {
    name: "resume",
    summary: "re-enter a run you hold on this Host",
    load: () => (require("./commands/resume") as typeof resumeModule).resumeCommand,
  },
  {
    name: "release",
    summary: "put a ticket you hold back in the queue",
    load: () => (require("./commands/release") as typeof releaseModule).releaseCommand,
  },
  {
    name: "hand-back",
    summary: "hand a handed-off ticket back to the Runs (ready-for-human -> ready-for-agent)",
    load: () => (require("./commands/hand-back") as typeof handBackModule).handBackCommand,
  },
  { name: "board", summary: "list tickets and who holds them", load: () => (require("./commands/board") as typeof boardModule).boardCommand },
  {
    name: "sandbox",
    summary: "run the local GitHub-compatible sandbox server",
    load: () => (require("./commands/sandbox") as typeof sandboxModule).sandboxCommand,
  },
  {
    name: "run",
    summary: "take tickets through the Stages to a merge, headless",
    load: () => (require("./commands/run") as typeof runModule).runCommand,
  },
  {
    name: "stop",
    summary: "ask this Host's Run to stop once its busy Lanes finish",
    load: () => (require("./commands/stop") as typeof stopModule).stopCommand,
  },
  {
    name: "init",
    summary: "set a Target up: labels, ticket-runner.json, .gitignore",
    load: () => (require("./commands/init") as typeof initModule).initCommand,
  },
  {
    name: "demo",
    summary: "run the whole product locally: sandbox, demo agent, VS Code or the terminal",
    load: () => (require("./commands/demo") as typeof demoModule).demoCommand,
  },
];
