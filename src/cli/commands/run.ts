/**
 * `ticket-runner run [n...] [--lanes N]`: the Run, headless. Stranded tickets first, then the
 * Frontier (or only the tickets named), through the Stages to a merge or another ending. SIGTERM
 * (`ticket-runner stop`) is a Stop: busy Lanes finish, nothing new is taken, a second one is
 * ignored. Ctrl+C stays a kill on purpose (docs/endings.md).
 */
import { killAllStageGroups } from "../../adapters/agent/process-group";
import { composeRun } from "../../app/compose-run";
import { parseTicketInput } from "../../core/claims/marker";
import { loadConfig } from "../../app/config-load";
import { AGENT_KINDS } from "../../core/schemas/config";
import type { Config } from "../../core/schemas/config";
import { Refusal } from "../../core/errors";
import type { CliCommand } from "../command";
import { checkoutForRun } from "../../adapters/git/checkout";
import { letGoOfSpawner } from "../../adapters/spawner/spawner";
import { markFirstLane, noteEvent, writeCpuReport } from "../../adapters/spawner/cpu-report";
import { cliLog } from "../claim-wiring";
import { ActionsTranscriptGroups } from "../actions-groups";
import { inActions } from "../actions-output";
import { reportToActions } from "../actions-report";
import { RunDisplay } from "../run-display";
import { codeCacheWorthKeeping } from "../code-cache";
import { parseArgs, resolveTarget } from "../target-options";
import { requireToken } from "../../app/target";

const USAGE = `ticket-runner run [<n>...] [--lanes <N>] [--agent <kind>] [--repo owner/name] [--api-url <url>]

Drains the Target's ready-for-agent tickets: its own Stranded tickets first, then the Frontier,
each through implement, the Checks, verify, at most one fix, rebase, pull request, CI and merge.
With ticket numbers, only those tickets (and only their State files are swept).

  --lanes <N>   how many tickets at once (default: "lanes" in ticket-runner.json)
  --agent <kind>  claude, codex, gemini or demo (default: "agent.kind" in ticket-runner.json)

Stop it with \`ticket-runner stop\` (SIGTERM): busy Lanes finish, nothing new is taken.
Ctrl+C kills it: claims stay, and the next Run resumes them.
Exit codes: 0 nothing handed off, 1 something handed off (or the Run failed), 2 refused.`;

function lanesArg(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 16)
    throw new Refusal("bad-input", `--lanes must be a whole number from 1 to 16, not "${text}", e.g. \`ticket-runner run --lanes 2\`.`, {
      next: "ticket-runner run --lanes 2",
    });
  return n;
}

/** `--agent`: the agents that need nothing more than their kind (a command's argv comes from the config). */
function agentArg(text: string | undefined): Config["agent"]["kind"] | undefined {
  if (text === undefined) return undefined;
  const kind = AGENT_KINDS.find((k) => k === text && k !== "command");
  if (!kind)
    throw new Refusal("bad-input", `--agent must be one of claude, codex, gemini, demo, not "${text}", e.g. \`ticket-runner run --agent codex\`.`, {
      next: "ticket-runner run --agent codex",
    });
  return kind;
}

export const runCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { values: ["--lanes", "--agent"] });
    const tickets = args.positionals.map((p) => {
      const n = parseTicketInput(p);
      if (n === null)
        throw new Refusal("bad-input", `"${p}" is not a ticket number. Name tickets by number, e.g. \`ticket-runner run 4 9\`.`, {
          next: "ticket-runner run 4 9",
        });
      return n;
    });
    const lanes = lanesArg(args.values.get("--lanes"));
    const agentKind = agentArg(args.values.get("--agent"));
    // The config first: its errors name the key and the fix (and a Target without it was never set up).
    // Read once: the Target and the Run use this read (ADR 0475).
    const { top, origin } = await checkoutForRun(io.cwd);
    const early = top ? loadConfig(top) : undefined;
    const target = resolveTarget(args, io, { command: "run", needsClone: true }, { top, config: early, origin });
    if (!target.checkout)
      throw new Refusal("not-a-target", "`ticket-runner run` works in a clone of the Target: its worktrees, State and lock live there.", {
        next: "git clone <the repository's URL> && cd <clone> && ticket-runner run",
      });
    const loaded = early ?? loadConfig(target.checkout);
    const config: Config = agentKind ? { ...loaded, agent: { ...loaded.agent, kind: agentKind } } : loaded;
    const token = requireToken(target);
    const actions = inActions(io.env);
    // In Actions the log is a file: no redraws, whatever TICKET_RUNNER_TTY says.
    const tty = !actions && (io.env.TICKET_RUNNER_TTY ? io.env.TICKET_RUNNER_TTY === "1" : Boolean(process.stdout.isTTY));
    const display = new RunDisplay({ line: io.out, raw: (text) => process.stdout.write(text) }, tty, process.stdout.columns || 100);
    const log = cliLog({ ...io, err: (line) => display.above(() => io.err(line)) });
    const { run } = composeRun(
      { config, apiUrl: target.apiUrl, token, repo: target.repo, cwd: target.checkout, runRoot: target.runRoot, log, env: io.env },
      { tickets, lanes, command: ["ticket-runner", "run", ...argv].join(" ") },
    );
    const unsubscribe = run.events.subscribe(display.onEvent);
    const unsubscribeStart = run.events.subscribe((event) => {
      if (event.kind !== "lane-started") return;
      markFirstLane();
      codeCacheWorthKeeping();
    });
    const unsubscribeTimeline = io.env.TICKET_RUNNER_CPU_FILE ? run.events.subscribe(noteEvent) : () => undefined;
    // In Actions each ticket's transcript is a collapsible group, commands stopped inside it.
    const unsubscribeGroups = actions ? run.events.subscribe(new ActionsTranscriptGroups(io.out).onEvent) : () => undefined;
    // SIGTERM is a Stop; a second one is ignored rather than turned into a kill.
    const onTerm = () => {
      if (run.stop() === "already-stopping") log.warn("already stopping; the busy Lanes finish first (Ctrl+C kills)");
    };
    // Ctrl+C stays a kill (docs/endings.md): the Stages' own process groups go down with the Run, and
    // nothing is written to the board; the claims stay for the next Run's sweep.
    const onInt = () => {
      killAllStageGroups();
      process.exit(130);
    };
    process.on("SIGTERM", onTerm);
    process.on("SIGINT", onInt);
    try {
      const summary = await run.start();
      for (const line of summary.lines) io.out(line);
      if (actions) reportToActions(summary, io.env, target.repo, io.out, log);
      return summary.exitCode;
    } finally {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
      unsubscribe();
      unsubscribeStart();
      unsubscribeTimeline();
      unsubscribeGroups();
      await letGoOfSpawner();
      writeCpuReport(io.env);
    }
  },
};
