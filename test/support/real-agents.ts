/**
 * Where the pinned real agent CLIs are installed (scripts/install-agents.sh puts them in the cache;
 * `.ci/run` runs it). A missing binary fails the suite with the command that installs it.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const CODEX_VERSION = "0.171.0";
export const GEMINI_CLI_VERSION = "0.61.0";

function cacheRoot(): string {
  return process.env.TICKET_RUNNER_CACHE ?? join(homedir(), ".cache", "ticket-runner");
}

function located(envVar: string, path: string, what: string): string {
  const chosen = process.env[envVar] ?? path;
  if (!existsSync(chosen)) throw new Error(`${what} is not installed at ${chosen}: run \`bash scripts/install-agents.sh\` (or set ${envVar})`);
  return chosen;
}

export function codexBinary(): string {
  return located("TICKET_RUNNER_CODEX", join(cacheRoot(), `codex-${CODEX_VERSION}`, "node_modules", ".bin", "codex"), `Codex CLI ${CODEX_VERSION}`);
}

export function geminiBinary(): string {
  return located("TICKET_RUNNER_GEMINI", join(cacheRoot(), `gemini-cli-${GEMINI_CLI_VERSION}`, "node_modules", ".bin", "gemini"), `Gemini CLI ${GEMINI_CLI_VERSION}`);
}
