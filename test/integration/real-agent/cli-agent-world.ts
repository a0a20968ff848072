/**
 * A sandbox Target worked by the real, pinned Codex CLI or Gemini CLI (scripts/install-agents.sh)
 * through `ticket-runner run` (dist/cli.js, a real child process), with the scripted model server
 * that speaks its provider's API as its model, wired as the demo wires it (agent-wiring.ts).
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { codexScriptedWiring, geminiScriptedWiring } from "../../../src/sandbox/model-server/agent-wiring";
import { startGeminiApiServer } from "../../../src/sandbox/model-server/gemini-api";
import { startOpenAiResponsesServer } from "../../../src/sandbox/model-server/openai-responses";
import type { ScriptedServer } from "../../../src/sandbox/model-server/scripted-http";
import { codexBinary, geminiBinary } from "../../support/real-agents";
import { RunWorld } from "../run/run-helpers";
import type { HostEnv } from "../run/run-helpers";
import { IDENTITY } from "./claude-world";

export type CliAgentKind = "codex" | "gemini";

export interface CliAgentWorld {
  world: RunWorld;
  model: ScriptedServer;
  host: HostEnv;
  /** Another Host: its own clone of the Target, its own agent home (so none of this Host's sessions), its own id. */
  otherHost(name: string): Promise<{ host: HostEnv; clone: string }>;
  dispose(): Promise<void>;
}

export async function cliAgentWorld(kind: CliAgentKind, opts: { agent?: Record<string, unknown>; onPath?: boolean } = {}): Promise<CliAgentWorld> {
  const binary = kind === "codex" ? codexBinary() : geminiBinary();
  const world = await RunWorld.make({ lanes: 1, agent: { kind, ...opts.agent } });
  const model = kind === "codex" ? await startOpenAiResponsesServer() : await startGeminiApiServer();
  const home = join(world.scratch, "agent-home");
  mkdirSync(home, { recursive: true });
  const wire = (dir: string) => (kind === "codex" ? codexScriptedWiring(model.url, dir) : geminiScriptedWiring(model.url, dir));
  const path = opts.onPath === false ? (process.env.PATH ?? "") : `${dirname(binary)}:${process.env.PATH ?? ""}`;
  // HOME too, as claude-world does: the CLIs run commands in login shells, which would otherwise run
  // this machine's rc files (a pyenv rehash waiting 60 s on a lock a killed shell left behind).
  const host = world.hostEnv(kind, { PATH: path, HOME: home, ...wire(home).env, ...IDENTITY });
  return {
    world,
    model,
    host,
    otherHost: async (name) => {
      const otherHome = join(world.scratch, `agent-home-${name}`);
      mkdirSync(otherHome, { recursive: true });
      const clone = await world.cloneAgain(name);
      return {
        clone,
        host: world.hostEnv(name, { PATH: path, HOME: otherHome, ...wire(otherHome).env, ...IDENTITY, TICKET_RUNNER_HOST_SESSION: `vm-${name}` }),
      };
    },
    dispose: async () => {
      await model.stop();
      await world.dispose();
    },
  };
}
