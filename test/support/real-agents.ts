/**
 * Where the pinned real agent CLIs are installed (scripts/install-agents.sh puts them in the cache;
 * `.ci/run` runs it). A missing binary fails the suite with the command that installs it.
 */
import { existsSync } from "node:fs";
import { CLAUDE_CODE_VERSION, CODEX_VERSION, GEMINI_CLI_VERSION, installedAgentPath } from "../../src/sandbox/model-server/agent-wiring";

function located(envVar: string, kind: "codex" | "gemini" | "claude", what: string): string {
  const chosen = process.env[envVar] ?? installedAgentPath(kind, process.env);
  if (!existsSync(chosen)) throw new Error(`${what} is not installed at ${chosen}: run \`bash scripts/install-agents.sh ${kind}\` (or set ${envVar})`);
  return chosen;
}

export function codexBinary(): string {
  return located("TICKET_RUNNER_CODEX", "codex", `Codex CLI ${CODEX_VERSION}`);
}

export function geminiBinary(): string {
  return located("TICKET_RUNNER_GEMINI", "gemini", `Gemini CLI ${GEMINI_CLI_VERSION}`);
}

export function claudeBinary(): string {
  return located("TICKET_RUNNER_CLAUDE", "claude", `Claude Code ${CLAUDE_CODE_VERSION}`);
}
