// No `vscode` import: the question Start asks, and when it must be asked again. Unit-tested
// without VS Code.
import { shellQuote } from "../../adapters/agent/stage-logs";
import type { Config } from "../../core/schemas/config";

/**
 * Everything about the agent that changes what runs on this machine: which runner, the program
 * and its arguments (from ticket-runner.json, which anyone who can push to the base branch
 * writes, or from the person's settings), the model, the permission mode, and whether it gets the
 * GitHub token. Any difference from what the person approved asks again (ADR 0230).
 */
export interface AgentCommandLine {
  readonly kind: Config["agent"]["kind"];
  /** `agent.command`: the program and its first arguments; null = the runner's own program on the PATH. */
  readonly command: readonly string[] | null;
  /** `agent.args`: arguments after the runner's own. */
  readonly args: readonly string[];
  readonly model: string | null;
  readonly permissionMode: Config["agent"]["permissionMode"];
  readonly passGitHubToken: boolean;
}

export function agentCommandLine(agent: Config["agent"]): AgentCommandLine {
  return {
    kind: agent.kind,
    command: agent.command ? [...agent.command] : null,
    args: [...agent.args],
    model: agent.model ?? null,
    permissionMode: agent.permissionMode,
    passGitHubToken: agent.passGitHubToken,
  };
}

/** What the person agreed to. A change of any part asks again. */
export interface StartConsent {
  readonly repo: string;
  readonly lanes: number;
  /** How the agent reads in the question ("Claude Code", "my-agent (command)"). */
  readonly agent: string;
  readonly commandLine: AgentCommandLine;
}

/**
 * Where approvals live in the workspace state: a list of exact keys, newest last. The key before
 * ADR 0230 ("ticketRunner.startConsent": repository, lanes and the agent's name only) is not read:
 * it approved command lines the person never saw.
 */
export const APPROVALS_STATE_KEY = "ticketRunner.startApprovals";
const KEEP_APPROVALS = 20;

/** The exact approval: every field, in a fixed order, so equal command lines give equal keys. */
export function consentKey(c: StartConsent): string {
  const l = c.commandLine;
  return JSON.stringify([c.repo, c.lanes, l.kind, l.command, l.args, l.model, l.permissionMode, l.passGitHubToken]);
}

function approvals(stored: unknown): string[] {
  return Array.isArray(stored) ? stored.filter((k): k is string => typeof k === "string") : [];
}

export function consentCovers(stored: unknown, wanted: StartConsent): boolean {
  return approvals(stored).includes(consentKey(wanted));
}

/** The stored list with this approval added (the oldest dropped past a few dozen). */
export function withApproval(stored: unknown, approved: StartConsent): string[] {
  const key = consentKey(approved);
  return [...approvals(stored).filter((k) => k !== key), key].slice(-KEEP_APPROVALS);
}

/** The agent's settings as a person reads them: the program line, then what else changes what it does. */
function describeCommandLine(l: AgentCommandLine): string {
  const program = l.command ? l.command.map(shellQuote).join(" ") : `${l.kind === "demo" ? "the scripted demo agent" : l.kind} (from the PATH)`;
  const extra = l.args.length ? ` … ${l.args.map(shellQuote).join(" ")}` : "";
  const settings = [
    `permission mode ${l.permissionMode}`,
    `model ${l.model ?? "the agent's default"}`,
    l.passGitHubToken ? "WITH your GitHub token" : "without your GitHub token",
  ];
  return `The agent runs: ${program}${extra}; ${settings.join(", ")}.`;
}

export interface StartQuestion {
  readonly message: string;
  readonly detail: string;
  readonly confirm: string;
}

export function startQuestion(c: StartConsent, readyLabel: string, narrowedTo: readonly number[] | null): StartQuestion {
  const lanes = `${c.lanes} ${c.lanes === 1 ? "lane" : "lanes"}`;
  const which = narrowedTo?.length ? `ticket ${narrowedTo.map((n) => `#${n}`).join(", ")}` : `tickets labelled ${readyLabel}`;
  return {
    message: `Start a Run on ${c.repo} with ${lanes} and the ${c.agent} agent?`,
    detail: [
      `It claims ${which} as you, runs the ${c.agent} agent on each in its own worktree, pushes branches, opens pull requests and merges them when the Checks, the verify Stage and CI pass.`,
      describeCommandLine(c.commandLine),
      `Stop finishes the busy lanes and claims nothing more. Closing or reloading this window kills the Run: its claims stay, and the next Start resumes them.`,
      `You are asked again in this workspace whenever the repository, the lane count or anything on the agent's command line changes (ticket-runner.json or your settings).`,
    ].join("\n\n"),
    confirm: "Start",
  };
}
