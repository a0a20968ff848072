/** `ticket-runner init`: sets a Target up for Ticket Runner (labels, ticket-runner.json, .gitignore). */
import { createOctokit } from "../../adapters/github/client";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE, loadConfig } from "../../app/config-load";
import { Refusal } from "../../core/errors";
import { agentsOnPath } from "../../app/agents-on-path";
import { checkoutTop } from "../../adapters/git/checkout";
import type { CliCommand } from "../command";
import { cliLog } from "../claim-wiring";
import { initActions } from "../../app/init-actions";
import { initTarget } from "../../app/init-target";
import { parseArgs, resolveTarget } from "../target-options";
import { requireToken } from "../../app/target";

const USAGE = `ticket-runner init [--actions [--hosts <N>] [--schedule "<cron>"]] [--repo owner/name] [--api-url <url>]

Run in a clone of the Target. Creates the labels (ready-for-agent, in-progress, ready-for-human),
ticket-runner.json (its Checks guessed from package.json, its agent the first of claude, codex,
gemini found on the PATH) and the .gitignore lines for
.worktrees/ and .ticket-runner/. Reports what it did; run again, it does nothing.

  --actions          also write .github/workflows/ticket-runner.yml: Hosts as GitHub Actions jobs
                     (docs/actions.md); never over an existing file
  --hosts <N>        how many Hosts (parallel jobs) a Run starts, 1-20 (default 2)
  --schedule "<cron>"  when a Run starts on its own (default "*/30 * * * *")`;

function hostsArg(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 20)
    throw new Refusal("bad-input", `--hosts must be a whole number from 1 to 20, not "${text}", e.g. \`ticket-runner init --actions --hosts 2\`.`, {
      next: "ticket-runner init --actions --hosts 2",
    });
  return n;
}

export const initCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--actions"], values: ["--hosts", "--schedule"] });
    const actions = args.flags.has("--actions");
    if (!actions && (args.values.has("--hosts") || args.values.has("--schedule")))
      throw new Refusal("bad-input", "--hosts and --schedule shape the Actions workflow: add --actions.", { next: "ticket-runner init --actions --hosts 2" });
    const hosts = hostsArg(args.values.get("--hosts"));
    if (args.positionals.length)
      throw new Refusal(
        "bad-input",
        `ticket-runner init takes no arguments (got ${args.positionals.join(" ")}). Run it in the Target's clone: \`ticket-runner init\`.`,
        { next: "ticket-runner init" },
      );
    // An existing config with an error is named here with the key and the fix, before anything else.
    const top = checkoutTop(io.cwd);
    if (top && existsSync(join(top, CONFIG_FILE))) loadConfig(top);
    const target = resolveTarget(args, io, { command: "init", needsClone: true });
    if (!target.checkout)
      throw new Refusal("not-a-target", "Run `ticket-runner init` inside a clone of the Target.", {
        next: "git clone <the repository's URL> && cd <clone> && ticket-runner init",
      });
    const token = requireToken(target);
    const tracker = new OctokitTracker(createOctokit({ apiUrl: target.apiUrl, token, log: cliLog(io) }), target.repo);
    const report = await initTarget(target.checkout, tracker, agentsOnPath(io.env));
    for (const line of report.lines) io.out(line);
    if (actions) for (const line of initActions(target.checkout, { hosts, schedule: args.values.get("--schedule"), cliBundle: __filename }).lines) io.out(line);
    return 0;
  },
};
