/**
 * A sandbox Target worked by the real, pinned Claude Code (scripts/install-agents.sh) through
 * `ticket-runner run` (dist/cli.js, a real child process), with the scripted Anthropic model server
 * (src/sandbox/model-server/anthropic-messages.ts) as its model: no account, no network.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { startAnthropicServer } from "../../../src/sandbox/model-server/anthropic-messages";
import { SCRIPTED_API_KEY } from "../../../src/sandbox/model-server/agent-wiring";
import type { ScriptedRequestRecord, ScriptedServer } from "../../../src/sandbox/model-server/scripted-http";
import { claudeBinary } from "../../support/real-agents";
import { RunWorld } from "../run/run-helpers";
import type { HostEnv } from "../run/run-helpers";

export interface ClaudeWorld {
  world: RunWorld;
  model: ScriptedServer;
  /** The host env `ticket-runner run` gets: claude on the PATH, pointed at the model server. */
  host: HostEnv;
  dispose(): Promise<void>;
}

export const IDENTITY = {
  GIT_AUTHOR_NAME: "Ana Runner",
  GIT_AUTHOR_EMAIL: "ana@example.invalid",
  GIT_COMMITTER_NAME: "Ana Runner",
  GIT_COMMITTER_EMAIL: "ana@example.invalid",
};

/**
 * `config` null: the Target's ticket-runner.json is the one `ticket-runner init` writes, nothing
 * added. `auth`: an API key, a subscriber's OAuth token (whose limits carry reset times), or none.
 */
export async function claudeWorld(opts: {
  config: Record<string, unknown> | null;
  auth?: "api-key" | "subscription" | "none";
  env?: Record<string, string>;
  onPath?: boolean;
}): Promise<ClaudeWorld> {
  const world = await RunWorld.make(opts.config ?? {});
  const model = await startAnthropicServer();
  const home = join(world.scratch, "home");
  mkdirSync(home, { recursive: true });
  const auth = opts.auth ?? "api-key";
  const path = opts.onPath === false ? (process.env.PATH ?? "") : `${dirname(claudeBinary())}:${process.env.PATH ?? ""}`;
  const host = world.hostEnv("claude", {
    PATH: path,
    HOME: home,
    ANTHROPIC_BASE_URL: model.url,
    ...(auth === "api-key" ? { ANTHROPIC_API_KEY: SCRIPTED_API_KEY } : {}),
    ...(auth === "subscription" ? { CLAUDE_CODE_OAUTH_TOKEN: `sk-ant-oat01-${SCRIPTED_API_KEY}` } : {}),
    ...IDENTITY,
    ...opts.env,
  });
  if (opts.config === null) await initDefaults(world, host);
  return {
    world,
    model,
    host,
    dispose: async () => {
      await model.stop();
      await world.dispose();
    },
  };
}

/** Replaces the seeded ticket-runner.json with what `ticket-runner init` writes, and pushes it. */
async function initDefaults(world: RunWorld, host: HostEnv): Promise<void> {
  const clone = world.target.clone;
  const git = (...args: string[]) => execFileSync("git", args, { cwd: clone, env: { ...process.env, ...IDENTITY, LC_ALL: "C" }, encoding: "utf8" });
  git("rm", "-q", "ticket-runner.json");
  const init = await world.cliDone(["init"], { host });
  if (init.code !== 0) throw new Error(`ticket-runner init failed (${init.code}):\n${init.out.join("\n")}\n${init.err.join("\n")}`);
  git("add", "-A");
  git("commit", "-qm", "ticket-runner init");
  // The token in a header for this one command, never in the clone's config (as cloneWithToken does).
  const basic = Buffer.from(`x-access-token:${world.target.userToken}`).toString("base64");
  git("-c", `http.extraHeader=Authorization: Basic ${basic}`, "push", "-q", "origin", "HEAD:main");
}

/** The model server's requests for one ticket's Stage, in order. */
export function stageRequests(model: ScriptedServer, ticket: number, stage: string): ScriptedRequestRecord[] {
  return model.requests().filter((r) => r.ticket === ticket && r.stage === stage);
}

/** Pids of the processes whose working directory is under `dir` (Linux /proc): the agent of a lane. */
export function processesUnder(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}
