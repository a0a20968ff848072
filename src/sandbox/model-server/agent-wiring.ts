/**
 * How the real Codex and Gemini CLIs are pointed at a scripted model server, with a home of their
 * own (no user config, no stored credentials read or written): the arguments and environment a
 * runner adds. Used by the real-agent tests and `ticket-runner demo --agent codex|gemini`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The key the scripted servers accept; the CLIs refuse to start without one. Not a secret. */
export const SCRIPTED_API_KEY = "scripted-model-key";

export interface AgentWiring {
  extraArgs: string[];
  env: Record<string, string>;
}

/** Codex: a `scripted` model provider speaking the Responses API at `<url>/v1`, no retries (the server scripts failures). */
export function codexScriptedWiring(serverUrl: string, home: string): AgentWiring {
  mkdirSync(home, { recursive: true });
  const provider = `{name="scripted",base_url=${JSON.stringify(`${serverUrl}/v1`)},wire_api="responses",env_key="TICKET_RUNNER_SCRIPTED_KEY",request_max_retries=0,stream_max_retries=0}`;
  return {
    extraArgs: ["-c", 'model_provider="scripted"', "-c", `model_providers.scripted=${provider}`],
    env: { CODEX_HOME: home, TICKET_RUNNER_SCRIPTED_KEY: SCRIPTED_API_KEY },
  };
}

/**
 * Gemini CLI: GOOGLE_GEMINI_BASE_URL and an API key. With the base URL set, 0.61.0 picks a
 * "gateway" auth type of its own that its validation then rejects ("Invalid auth method
 * selected."), so the home's settings name the API-key auth explicitly. Two attempts per request
 * (the CLI's default is 10, 5 s apart and growing): the server scripts failures, retries only slow them.
 */
export function geminiScriptedWiring(serverUrl: string, home: string): AgentWiring {
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false }, general: { maxAttempts: 2 } }, null, 2));
  return {
    extraArgs: [],
    env: { GEMINI_CLI_HOME: home, GEMINI_API_KEY: SCRIPTED_API_KEY, GOOGLE_GEMINI_BASE_URL: serverUrl },
  };
}
