/**
 * The one place a Run's adapters are built: the CLI (`ticket-runner run`) and the VS Code
 * extension both call composeRun(), so a Run behaves the same whichever door started it.
 * Octokit Tracker, git Workspace, the claim protocol (as the Run's ClaimGate), the agent runner
 * the config names, this Host and the real clock.
 */
import { existsSync } from "node:fs";
import * as path from "node:path";
import type { ClaimProtocol } from "../core/claims/claim-protocol";
import type { RunDeps } from "../core/run/context";
import { runIdFor } from "../core/run/naming";
import { Run } from "../core/run/run";
import type { RunOptions } from "../core/run/run";
import type { Config } from "../core/schemas/config";
import { PRODUCT_VERSION } from "../core/version";
import type { AgentRunner } from "../ports/agent-runner";
import type { Clock } from "../ports/clock";
import type { Log } from "../ports/log";
import type { RepoRef } from "../ports/tracker";
import { ClaudeCodeRunner } from "../adapters/agent/claude-code-runner";
import { createCodexRunner } from "../adapters/agent/codex-runner";
import { createDemoAgentRunner } from "../adapters/agent/demo-agent-runner";
import { createGeminiRunner } from "../adapters/agent/gemini-runner";
import { GitWorkspace } from "../adapters/git/git-workspace";
import { Sandbox } from "../adapters/isolation/sandbox";
import { gitUrlFor } from "../adapters/git/target-url";
import { createOctokit } from "../adapters/github/client";
import { OctokitTracker } from "../adapters/github/octokit-tracker";
import { NodeClock } from "../adapters/node-clock";
import { NodeHost } from "../adapters/node-host";
import { composeClaims } from "./compose-claims";

export interface ComposeRunInput {
  config: Config;
  apiUrl: string;
  token: string;
  repo: RepoRef;
  /** The Target's clone (its top level). */
  cwd: string;
  /** This Host's run root for local claims (run.json). */
  runRoot: string;
  log: Log;
  /** The environment: Host identity, the agent's base environment, and what is redacted. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where dist/demo-agent.js is, for agent.kind "demo". Default: next to this bundle, else <cwd of the product>/dist. */
  distDir?: string;
  clock?: Clock;
  /** For tests: a different agent runner than the config's. */
  agent?: AgentRunner;
  /** For tests: where Node says it runs (the isolation's default). Default process.platform. */
  platform?: NodeJS.Platform;
}

export interface ComposedRun {
  run: Run;
  runId: string;
  deps: RunDeps;
  tracker: OctokitTracker;
  workspace: GitWorkspace;
  gate: ClaimProtocol;
  host: NodeHost;
}

/** dist/ of the installed product: the bundles live side by side there. */
export function defaultDistDir(): string {
  const here = __dirname;
  if (existsSync(path.join(here, "demo-agent.js"))) return here;
  return path.resolve(here, "..", "..", "dist");
}

/** The config's isolation, or the Host's default: the sandbox on Linux, where bubblewrap runs (ADR 0290). */
export function isolationFor(config: Config, platform: NodeJS.Platform = process.platform): "sandbox" | "none" {
  return config.isolation ?? (platform === "linux" ? "sandbox" : "none");
}

export function agentFor(config: Config, input: Pick<ComposeRunInput, "env" | "log" | "distDir"> & { sandbox?: Sandbox }): AgentRunner {
  const common = {
    sandbox: input.sandbox,
    model: config.agent.model,
    permissionMode: config.agent.permissionMode,
    passGitHubToken: config.agent.passGitHubToken,
    baseEnv: input.env ?? process.env,
    log: input.log,
  };
  switch (config.agent.kind) {
    case "demo":
      return createDemoAgentRunner(input.distDir ?? defaultDistDir(), common);
    case "command":
      return new ClaudeCodeRunner({ ...common, command: config.agent.command, name: path.basename(config.agent.command?.[0] ?? "agent") });
    case "claude":
      return new ClaudeCodeRunner(common);
    case "codex":
      return createCodexRunner({ ...common, command: config.agent.command, extraArgs: config.agent.args });
    case "gemini":
      return createGeminiRunner({ ...common, command: config.agent.command, extraArgs: config.agent.args, checks: config.checks });
  }
}

export function composeRun(input: ComposeRunInput, options: RunOptions = {}): ComposedRun {
  const env = input.env ?? process.env;
  const clock = input.clock ?? new NodeClock();
  const runId = options.runId ?? runIdFor(clock.now());
  const host = new NodeHost({ env });
  const octokit = createOctokit({ apiUrl: input.apiUrl, token: input.token, log: input.log });
  const tracker = new OctokitTracker(octokit, input.repo);
  const remoteUrl = gitUrlFor(input.apiUrl, input.repo);
  // One sandbox for the agent and the Checks, prepared by the workspace's preflight before the lock.
  const sandbox = new Sandbox({ mode: isolationFor(input.config, input.platform), env });
  const workspace = new GitWorkspace({
    root: input.cwd,
    host,
    token: input.token,
    remoteUrl,
    env,
    lockScope: input.config.lockScope,
    checkEnvNames: input.config.checkEnv,
    sandbox,
    log: input.log,
  });
  const { gate } = composeClaims({
    tracker,
    runRoot: input.runRoot,
    host,
    clock,
    log: input.log,
    config: input.config,
    holder: "machine",
    runId,
    adoptAcrossHosts: input.config.lockScope === "target",
  });
  const deps: RunDeps = {
    tracker,
    workspace,
    agent: input.agent ?? agentFor(input.config, { env, log: input.log, distDir: input.distDir, sandbox }),
    gate,
    clock,
    host,
    log: input.log,
    trust: async (issue) => (await gate.ctx.trust.readyLabelTrusted(tracker, issue.number, input.config.labels.ready)).trusted,
    recheck: (claim) => gate.recheck(claim),
  };
  const run = new Run(deps, input.config, { version: PRODUCT_VERSION, ...options, runId });
  return { run, runId, deps, tracker, workspace, gate, host };
}
