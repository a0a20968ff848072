/**
 * Whose fault a Stage's outcome is, as data (ADR-0141): the ticket's (a Hand-off: a person looks at
 * the ticket), the limit's (a Release: run again once it resets), or the environment's (the agent
 * cannot work at all on this Host: the Run stops taking tickets and releases what it holds, with
 * its work kept, because handing the queue off one ticket at a time would empty it into
 * ready-for-human for a problem no ticket has). Agent-neutral: adapters map their signs onto the
 * port's outcomes and UnavailableReason.
 */
import type { StageOutcome, UnavailableReason } from "../../ports/agent-runner";

export type FaultOf = "none" | "ticket" | "limit" | "environment";

export const OUTCOME_FAULT: Record<StageOutcome, FaultOf> = {
  success: "none",
  "rate-limited": "limit",
  unavailable: "environment",
  "timed-out": "ticket",
  "turn-capped": "ticket",
  "nonzero-exit": "ticket",
  "invalid-result": "ticket",
};

/** What it is, in a person's words. */
export const UNAVAILABLE_WHAT: Record<UnavailableReason, string> = {
  "not-signed-in": "the agent is not signed in on this Host",
  "not-installed": "the agent's executable is not installed on this Host",
  "refused-to-start": "the agent refused to start with these settings",
  "provider-down": "the model provider is down or unreachable",
};

/** What to do about it, before running again. */
const UNAVAILABLE_ADVICE: Record<UnavailableReason, string> = {
  "not-signed-in": "Sign the agent in on this Host (for Claude Code: run `claude` and `/login`, or set ANTHROPIC_API_KEY)",
  "not-installed": "Install the agent (for Claude Code: `npm install -g @anthropic-ai/claude-code`) or set agent.command in ticket-runner.json",
  "refused-to-start":
    "Change the settings it refused (Claude Code refuses permissionMode bypassPermissions as root unless IS_SANDBOX=1 is set; see docs/agents.md)",
  "provider-down": "Wait for the provider to recover (for Anthropic: https://status.anthropic.com)",
};

export interface Unavailable {
  reason: UnavailableReason;
  stage: string;
  ticket: number;
  detail: string;
}

/** The closing advice of a Run the agent's unavailability stopped. */
export function unavailableLine(u: Unavailable): string {
  const detail = u.detail
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200)
    .replace(/[.\s]+$/, "");
  const said = detail ? ` (${detail})` : "";
  return `Stopped: ${UNAVAILABLE_WHAT[u.reason]}${said}. Nothing was handed off; the tickets it held were released with their work kept. ${UNAVAILABLE_ADVICE[u.reason]}, then run \`ticket-runner run\` again.`;
}
