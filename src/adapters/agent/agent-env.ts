/**
 * The agent's environment. An agent runs code an issue author may have influenced, so by default
 * it gets no GitHub token: it cannot push, comment or merge as us (ADR-0051), and never a variable
 * that points at an IPC channel or credential helper of the person's session (IPC_VARS, ADR 0340).
 * The rest passes: the agent needs its own provider keys, proxies and settings, whose names no list
 * can know.
 */
import { GITHUB_TOKEN_VARS, IPC_VARS, namedIn } from "../../core/token-vars";
import type { StageName } from "../../ports/agent-runner";

/** Dropped unless the runner is configured with `passGitHubToken`. */
export { GITHUB_TOKEN_VARS };

export interface AgentEnvInput {
  base: NodeJS.ProcessEnv;
  /** Fixed extras from the runner's options (e.g. ELECTRON_RUN_AS_NODE for the demo agent). */
  extra?: Record<string, string>;
  /** Per-Stage extras from the request. */
  request?: Record<string, string>;
  stage: StageName;
  ticket: number;
  passGitHubToken: boolean;
}

export function agentEnv(input: AgentEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.base)) if (v !== undefined) env[k] = v;
  Object.assign(env, input.extra ?? {}, input.request ?? {});
  if (!input.passGitHubToken) for (const name of GITHUB_TOKEN_VARS) delete env[name];
  for (const name of Object.keys(env)) if (namedIn(name, IPC_VARS)) delete env[name];
  // Set last so nothing can unset them: the CLI refuses to run inside a Stage by this variable.
  env.TICKET_RUNNER_STAGE = input.stage;
  env.TICKET_RUNNER_TICKET = String(input.ticket);
  return env;
}
