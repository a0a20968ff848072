/**
 * How the real Claude Code, Codex and Gemini CLIs are pointed at a scripted model server, with a home of their
 * own (no user config, no stored credentials read or written): the arguments and environment a
 * runner adds. Used by the real-agent tests and `ticket-runner demo --agent codex|gemini`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The key the scripted servers accept; the CLIs refuse to start without one. Not a secret. */
export const SCRIPTED_API_KEY = "scripted-model-key";

export interface AgentWiring {
  extraArgs: string[];
  env: Record<string, string>;
}

/**
 * Codex: its home's config.toml names a `scripted` model provider speaking the Responses API at
 * `<url>/v1`, with no retries (the server scripts failures). A config file rather than `-c`
 * arguments, so a Run whose config has no `agent.args` (the demo's) uses it too.
 */
export function codexScriptedWiring(serverUrl: string, home: string): AgentWiring {
  mkdirSync(home, { recursive: true });
  const toml = [
    // A model Codex has no metadata for: it falls back to its classic function tools (exec_command),
    // which the scripted model speaks; its own models use a JavaScript "code mode" tool instead.
    'model = "scripted"',
    'model_provider = "scripted"',
    "",
    "[model_providers.scripted]",
    'name = "scripted"',
    `base_url = ${JSON.stringify(`${serverUrl}/v1`)}`,
    'wire_api = "responses"',
    'env_key = "TICKET_RUNNER_SCRIPTED_KEY"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
  ].join("\n");
  writeFileSync(join(home, "config.toml"), toml);
  return { extraArgs: [], env: { CODEX_HOME: home, TICKET_RUNNER_SCRIPTED_KEY: SCRIPTED_API_KEY } };
}

export const CODEX_VERSION = "0.171.0";
export const GEMINI_CLI_VERSION = "0.61.0";

/** Where scripts/install-agents.sh puts the pinned CLI (`TICKET_RUNNER_CACHE`, default ~/.cache/ticket-runner). */
/** The Claude Code version scripts/install-agents.sh pins (test/fixtures/claude-streams/real-*). */
export const CLAUDE_CODE_VERSION = "2.1.332";

export function installedAgentPath(kind: "codex" | "gemini" | "claude", env: NodeJS.ProcessEnv): string {
  const root = env.TICKET_RUNNER_CACHE ?? join(env.HOME ?? homedir(), ".cache", "ticket-runner");
  if (kind === "claude") return join(root, `claude-code-${CLAUDE_CODE_VERSION}`, "node_modules", ".bin", "claude");
  return kind === "codex"
    ? join(root, `codex-${CODEX_VERSION}`, "node_modules", ".bin", "codex")
    : join(root, `gemini-cli-${GEMINI_CLI_VERSION}`, "node_modules", ".bin", "gemini");
}

/**
 * Claude Code: ANTHROPIC_BASE_URL, and a subscriber's OAuth token (a placeholder the scripted server
 * accepts), so its limits read as a subscriber's do ("You've hit your 5-hour limit · resets 3:40pm")
 * and carry a reset time. Its settings and sessions live in `home` (CLAUDE_CONFIG_DIR), never in
 * the person's ~/.claude.
 */
export function claudeScriptedWiring(serverUrl: string, home: string): AgentWiring {
  mkdirSync(home, { recursive: true });
  return { extraArgs: [], env: { ANTHROPIC_BASE_URL: serverUrl, CLAUDE_CODE_OAUTH_TOKEN: `sk-ant-oat01-${SCRIPTED_API_KEY}`, CLAUDE_CONFIG_DIR: home } };
}

/**
 * Gemini CLI: GOOGLE_GEMINI_BASE_URL and an API key. With the base URL set, 0.61.0 picks a
 * "gateway" auth type of its own that its validation then rejects ("Invalid auth method
 * selected."), so the home's settings name the API-key auth explicitly. Two attempts per request
 * (the CLI's default is 10, 5 s apart and growing): the server scripts failures, retries only slow them.
 * A named model: with its default ("auto") the CLI first asks a classifier model which model to
 * use, in a JSON shape of its own; unanswered, that costs two retries per Stage.
 */
export function geminiScriptedWiring(serverUrl: string, home: string): AgentWiring {
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    JSON.stringify(
      {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        general: { maxAttempts: 2 },
        model: { name: "gemini-2.5-pro" },
      },
      null,
      2,
    ),
  );
  return {
    extraArgs: [],
    env: { GEMINI_CLI_HOME: home, GEMINI_API_KEY: SCRIPTED_API_KEY, GOOGLE_GEMINI_BASE_URL: serverUrl },
  };
}
