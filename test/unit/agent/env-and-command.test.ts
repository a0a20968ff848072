import { strict as assert } from "node:assert";
import { agentEnv } from "../../../src/adapters/agent/agent-env";
import { checkEnvironment } from "../../../src/adapters/git/run-check";
import { shellQuote } from "../../../src/adapters/agent/stage-logs";
import { ClaudeCodeRunner } from "../../../src/adapters/agent/claude-code-runner";
import type { StageRequest } from "../../../src/ports/agent-runner";

describe("agent env", () => {
  const base = { PATH: "/bin", GITHUB_TOKEN: "t1", GH_TOKEN: "t2", TICKET_RUNNER_TOKEN: "t3", ANTHROPIC_API_KEY: "k", TICKET_RUNNER_STAGE: "stale" };

  it("drops GitHub tokens (also from the request), keeps the rest, sets the Stage last", () => {
    const env = agentEnv({
      base,
      request: { GH_TOKEN: "sneaky", TICKET_RUNNER_BASE: "main", TICKET_RUNNER_STAGE: "x" },
      stage: "verify",
      ticket: 7,
      passGitHubToken: false,
    });
    assert.equal(env.GITHUB_TOKEN, undefined);
    assert.equal(env.GH_TOKEN, undefined);
    assert.equal(env.TICKET_RUNNER_TOKEN, undefined);
    assert.equal(env.ANTHROPIC_API_KEY, "k", "the agent's own credentials stay");
    assert.equal(env.TICKET_RUNNER_BASE, "main");
    assert.equal(env.TICKET_RUNNER_STAGE, "verify");
    assert.equal(env.TICKET_RUNNER_TICKET, "7");
  });

  it("passes them when configured", () => {
    const env = agentEnv({ base, stage: "fix", ticket: 1, passGitHubToken: true });
    assert.equal(env.GITHUB_TOKEN, "t1");
  });

  // Fails on the code before ADR 0340: the agent got every one of them.
  const session = {
    VSCODE_IPC_HOOK: "/run/user/1000/vscode-1.sock",
    VSCODE_IPC_HOOK_CLI: "/run/user/1000/vscode-ipc-2.sock",
    VSCODE_IPC_HOOK_EXTHOST: "/tmp/vscode-ipc-3.sock",
    VSCODE_GIT_IPC_HANDLE: "/run/user/1000/vscode-git-4.sock",
    VSCODE_GIT_ASKPASS_NODE: "/usr/share/code/code",
    VSCODE_GIT_ASKPASS_MAIN: "/usr/share/code/askpass-main.js",
    VSCODE_GIT_ASKPASS_EXTRA_ARGS: "",
    GIT_ASKPASS: "/usr/share/code/askpass.sh",
    SSH_ASKPASS: "/usr/bin/ssh-askpass",
    SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1",
    GPG_AGENT_INFO: "/run/user/1000/gnupg/S.gpg-agent:0:1",
    DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus",
    DISPLAY: ":0",
  };

  it("drops every variable that points at the session's IPC channels or credential helpers, keeps the agent's own", () => {
    const env = agentEnv({
      base: { ...base, ...session, HOME: "/home/a", HTTPS_PROXY: "http://proxy:3128", VSCODE_PID: "9" },
      request: { SSH_AUTH_SOCK: "/tmp/again" },
      stage: "implement",
      ticket: 2,
      passGitHubToken: true,
    });
    for (const name of Object.keys(session)) assert.equal(env[name], undefined, `${name} reached the agent`);
    assert.equal(env.ANTHROPIC_API_KEY, "k");
    assert.equal(env.HTTPS_PROXY, "http://proxy:3128", "the agent's proxy stays");
    assert.equal(env.HOME, "/home/a");
    assert.equal(env.VSCODE_PID, "9", "only the channels go, not every VS Code variable");
  });

  it("the Checks never get them either, even when checkEnv names them", () => {
    const env = checkEnvironment({ ...session, PATH: "/bin" }, ["VSCODE_*", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GIT_ASKPASS", "DISPLAY"]);
    assert.deepEqual(Object.keys(env), ["PATH"]);
  });
});

describe("shellQuote", () => {
  it("leaves safe words bare and single-quotes the rest", () => {
    assert.equal(shellQuote("--max-turns"), "--max-turns");
    assert.equal(shellQuote("a b"), "'a b'");
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    assert.equal(shellQuote(""), "''");
    assert.equal(shellQuote("$(x)"), "'$(x)'");
  });
});

describe("ClaudeCodeRunner argv", () => {
  const req: StageRequest = {
    stage: "implement",
    ticket: 1,
    prompt: "-- looks like a flag",
    cwd: "/w",
    logDir: "/l",
    logName: "i",
    timeoutMs: 1,
    maxTurns: 12,
  };

  it("puts the prompt as ONE element right after -p, even when it looks like a flag", () => {
    const { args, promptIndex } = new ClaudeCodeRunner({ command: ["node", "agent.js"] }).buildArgs(req);
    assert.deepEqual(args.slice(0, 3), ["agent.js", "-p", "-- looks like a flag"]);
    assert.equal(promptIndex, 2);
    assert.deepEqual(args.slice(3), ["--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--max-turns", "12"]);
  });

  it("adds --model and --json-schema only when set", () => {
    const { args } = new ClaudeCodeRunner({ model: "opus" }).buildArgs({ ...req, jsonSchema: { type: "object" } });
    assert.deepEqual(args.slice(-4), ["--model", "opus", "--json-schema", '{"type":"object"}']);
  });
});
