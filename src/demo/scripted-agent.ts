/**
 * `ticket-runner demo --headless --agent claude|codex|gemini`: the real CLI (pinned, installed by
 * scripts/install-agents.sh) works the demo's tickets against a scripted model server that this
 * process runs, speaking the CLI's provider API, with the demo's behaviours (a usage limit on
 * #6, a teammate's push during #4) played by the server. No account, no network.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { Refusal } from "../core/errors";
import { claudeScriptedWiring, codexScriptedWiring, geminiScriptedWiring, installedAgentPath } from "../sandbox/model-server/agent-wiring";
import type { AgentWiring } from "../sandbox/model-server/agent-wiring";
import { startAnthropicServer } from "../sandbox/model-server/anthropic-messages";
import { demoBehaviours } from "../sandbox/model-server/demo-behaviours";
import type { BeforeTurn } from "../sandbox/model-server/demo-behaviours";
import { startGeminiApiServer } from "../sandbox/model-server/gemini-api";
import { startOpenAiResponsesServer } from "../sandbox/model-server/openai-responses";
import type { ScriptedServer } from "../sandbox/model-server/scripted-http";
import { pushTeammateCommit } from "../sandbox/demo-agent/teammate";

export type ScriptedAgentKind = "claude" | "codex" | "gemini";

interface Scripting {
  name: string;
  start(beforeTurn: BeforeTurn): Promise<ScriptedServer>;
  wiring(url: string, home: string): AgentWiring;
}

/** Each agent's name, the model server speaking its provider's API, and how it is pointed there. */
const SCRIPTING: Record<ScriptedAgentKind, Scripting> = {
  claude: { name: "Claude Code", start: (beforeTurn) => startAnthropicServer({ beforeTurn }), wiring: claudeScriptedWiring },
  codex: { name: "Codex CLI", start: (beforeTurn) => startOpenAiResponsesServer({ beforeTurn }), wiring: codexScriptedWiring },
  gemini: { name: "Gemini CLI", start: (beforeTurn) => startGeminiApiServer({ beforeTurn }), wiring: geminiScriptedWiring },
};

export function scriptedAgentName(kind: ScriptedAgentKind): string {
  return SCRIPTING[kind].name;
}

export interface ScriptedAgent {
  /** The demo's env, plus the agent on the PATH and pointed at the server. */
  env: NodeJS.ProcessEnv;
  server: ScriptedServer;
}

export async function startScriptedAgent(kind: ScriptedAgentKind, opts: { root: string; clone: string; env: NodeJS.ProcessEnv }): Promise<ScriptedAgent> {
  const scripting = SCRIPTING[kind];
  const name = scripting.name;
  const binary = installedAgentPath(kind, opts.env);
  if (!existsSync(binary)) {
    throw new Refusal(
      "bad-config",
      `The demo runs the real ${name}, and it is not installed at ${binary}. Install it once: \`bash scripts/install-agents.sh ${kind}\`.`,
      { next: `bash scripts/install-agents.sh ${kind}` },
    );
  }
  const server = await scripting.start(demoBehaviours({ clone: opts.clone, env: opts.env, pushTeammateCommit }));
  const wiring = scripting.wiring(server.url, join(opts.root, "agent-home", kind));
  const email = `${kind}-scripted@ticket-runner.invalid`;
  // The agent commits as itself; the Run's own git sets its own identity (git-runner.ts).
  const identity = {
    GIT_AUTHOR_NAME: `${name} (scripted model)`,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: `${name} (scripted model)`,
    GIT_COMMITTER_EMAIL: email,
  };
  const env: NodeJS.ProcessEnv = { ...opts.env, ...wiring.env, ...identity, PATH: [dirname(binary), opts.env.PATH ?? ""].join(":") };
  return { env, server };
}
