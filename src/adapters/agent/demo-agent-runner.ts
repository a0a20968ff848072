/**
 * The demo agent is driven by the same adapter as Claude Code: it accepts claude's argv and speaks
 * the same stream-json, so nothing about a Stage differs but the executable.
 */
import { join } from "node:path";
import { ClaudeCodeRunner } from "./claude-code-runner";
import type { ClaudeCodeRunnerOptions } from "./claude-code-runner";

/**
 * `node <distDir>/demo-agent.js`. `process.execPath` is node in the CLI and in code-server's
 * extension host, but the Electron binary in desktop VS Code: ELECTRON_RUN_AS_NODE makes Electron
 * behave as node and is ignored by node itself.
 */
function demoAgentCommand(distDir: string): { command: string[]; extraEnv: Record<string, string> } {
  return { command: [process.execPath, join(distDir, "demo-agent.js")], extraEnv: { ELECTRON_RUN_AS_NODE: "1" } };
}

export function createDemoAgentRunner(distDir: string, opts: Omit<ClaudeCodeRunnerOptions, "command" | "name"> = {}): ClaudeCodeRunner {
  const { command, extraEnv } = demoAgentCommand(distDir);
  return new ClaudeCodeRunner({ ...opts, command, name: "demo", extraEnv: { ...extraEnv, ...opts.extraEnv } });
}
