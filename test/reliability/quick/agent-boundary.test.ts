/**
 * The agent boundary, as real child processes run by the real ClaudeCodeRunner:
 *   row "an agent stream with invalid UTF-8": each way of breaking UTF-8 on stdout ends the Stage
 *     as `invalid-result` naming the line, never a crash or a hang; a valid character split across
 *     writes is not damage; junk on stderr is only logged
 *   row "the agent's environment drops GitHub tokens unless configured": every token variable is
 *     absent in the agent's process unless passGitHubToken is set, and no token is in any log file
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GITHUB_TOKEN_VARS } from "../../../src/adapters/agent/agent-env";
import { ClaudeCodeRunner } from "../../../src/adapters/agent/claude-code-runner";
import type { StageResult } from "../../../src/ports/agent-runner";
import { record } from "../support/figures";

const TEST = "test/reliability/quick/agent-boundary.test.ts";
const CANARY = "ghp_RELIABILITYcanary0123456789abcdefAB";

const INIT = '{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"."}';
const RESULT = '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done"}';
const text = (t: string): string => `{"type":"assistant","message":{"content":[{"type":"text","text":"${t}"}]}}`;

/**
 * A fake agent that writes the given stdout/stderr chunks (hex) one write at a time, and records
 * its environment. It is a real process, started by the runner exactly as claude would be.
 */
const AGENT = `
const fs = require("node:fs");
const spec = JSON.parse(fs.readFileSync(process.env.REL_SPEC, "utf8"));
fs.writeFileSync(process.env.REL_ENV_OUT, JSON.stringify(process.env));
(async () => {
  for (const part of spec.stderr) process.stderr.write(Buffer.from(part, "hex"));
  for (const part of spec.stdout) {
    await new Promise((r) => process.stdout.write(Buffer.from(part, "hex"), r));
    await new Promise((r) => setTimeout(r, 2));
  }
})();
`;

const hex = (...parts: (string | number[])[]): string =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p)))).toString("hex");

interface StreamCase {
  name: string;
  stdout: string[];
  stderr?: string[];
  outcome: StageResult["outcome"];
  detail?: RegExp;
}

const euro = Buffer.from("€"); // e2 82 ac
const CASES: StreamCase[] = [
  {
    name: "a stray 0xff byte in assistant text",
    stdout: [hex(INIT, "\n", text("bad "), [0xff], "\n", RESULT, "\n")],
    outcome: "invalid-result",
    detail: /line 2 is not valid UTF-8/,
  },
  {
    name: "an overlong encoding of '/'",
    stdout: [hex(INIT, "\n", text(""), [0xc0, 0xaf], "\n", RESULT, "\n")],
    outcome: "invalid-result",
    detail: /not valid UTF-8/,
  },
  {
    name: "an encoded surrogate half (CESU-8)",
    stdout: [hex(INIT, "\n", text("x"), [0xed, 0xa0, 0x80], "\n", RESULT, "\n")],
    outcome: "invalid-result",
    detail: /not valid UTF-8/,
  },
  {
    name: "a sequence cut by the end of the stream",
    stdout: [hex(INIT, "\n", RESULT, "\n", [0xe2, 0x82])],
    outcome: "invalid-result",
    detail: /line 3 is not valid UTF-8/,
  },
  {
    name: "invalid UTF-8 inside the result line",
    stdout: [hex(INIT, "\n", '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"', [0xfe], '"}\n')],
    outcome: "invalid-result",
    detail: /not valid UTF-8/,
  },
  {
    name: "a valid euro sign split across three writes",
    stdout: [hex(INIT, "\n", text("price 5").slice(0, -5), [euro[0]!]), hex([euro[1]!]), hex([euro[2]!], '"}]}}', "\n", RESULT, "\n")],
    outcome: "success",
  },
  { name: "junk bytes on stderr only", stdout: [hex(INIT, "\n", RESULT, "\n")], stderr: [hex([0xff, 0xfe, 0x00], "oops\n")], outcome: "success" },
  { name: "a NUL inside a JSON string escape", stdout: [hex(INIT, "\n", text("nul \\u0000 here"), "\n", RESULT, "\n")], outcome: "success" },
];

describe("reliability: the agent boundary (stream bytes and environment)", function () {
  this.timeout(60_000);
  let dir: string;
  let script: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "tr-rel-agent-"));
    script = join(dir, "agent.js");
    writeFileSync(script, AGENT);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function runStage(
    name: string,
    spec: { stdout: string[]; stderr?: string[] },
    env: Record<string, string>,
    passGitHubToken = false,
  ): Promise<{ result: StageResult; agentEnv: Record<string, string>; logDir: string }> {
    const specFile = join(dir, `${name}.json`);
    const envOut = join(dir, `${name}.env.json`);
    const logDir = join(dir, `${name}-logs`);
    writeFileSync(specFile, JSON.stringify({ stdout: spec.stdout, stderr: spec.stderr ?? [] }));
    const runner = new ClaudeCodeRunner({
      command: [process.execPath, script],
      baseEnv: { PATH: process.env.PATH, ...env, REL_SPEC: specFile, REL_ENV_OUT: envOut },
      passGitHubToken,
      killGraceMs: 500,
    });
    const result = await runner.run({
      stage: "implement",
      ticket: 3,
      prompt: `do it ${CANARY}`,
      cwd: dir,
      logDir,
      logName: "implement",
      timeoutMs: 20_000,
      maxTurns: 3,
      env: { GH_TOKEN: CANARY },
    });
    return { result, agentEnv: JSON.parse(readFileSync(envOut, "utf8")) as Record<string, string>, logDir };
  }

  it("invalid UTF-8 on stdout: a clear invalid-result naming the line; valid split characters and stderr junk are fine", async () => {
    let i = 0;
    for (const c of CASES) {
      const { result } = await runStage(`utf8-${i++}`, c, {});
      assert.equal(result.outcome, c.outcome, `${c.name}: ${result.outcome} ${result.detail ?? ""}`);
      if (c.detail) assert.match(result.detail ?? "", c.detail, c.name);
    }
    record("input.agent-utf8", {
      what: "invalid UTF-8 from the agent ends the Stage as invalid-result, never a crash",
      test: TEST,
      inputs: CASES.length,
      losses: 0,
    });
  });

  it("GitHub tokens never reach the agent unless configured, and never reach a log", async () => {
    const tokens = Object.fromEntries(GITHUB_TOKEN_VARS.map((v) => [v, CANARY]));
    const ok = { stdout: [hex(INIT, "\n", text(`I saw ${CANARY}`), "\n", RESULT, "\n")], stderr: [hex(`token=${CANARY}\n`)] };

    const dropped = await runStage("env-dropped", ok, { ...tokens, ANTHROPIC_API_KEY: "sk-agent-own" });
    assert.equal(dropped.result.outcome, "success");
    for (const v of GITHUB_TOKEN_VARS) assert.equal(dropped.agentEnv[v], undefined, `${v} reached the agent`);
    assert.ok(!JSON.stringify(dropped.agentEnv).includes(CANARY), "the canary reached the agent's environment under another name");
    assert.equal(dropped.agentEnv.ANTHROPIC_API_KEY, "sk-agent-own", "the agent keeps its own credentials");
    assert.equal(dropped.agentEnv.TICKET_RUNNER_STAGE, "implement");
    for (const f of readdirSync(dropped.logDir)) assert.ok(!readFileSync(join(dropped.logDir, f), "utf8").includes(CANARY), `${f} holds the canary`);
    assert.ok(!JSON.stringify(dropped.result).includes(CANARY));

    const passed = await runStage("env-passed", ok, tokens, true);
    for (const v of GITHUB_TOKEN_VARS) assert.equal(passed.agentEnv[v], CANARY, `${v} not passed when configured`);
    for (const f of readdirSync(passed.logDir))
      assert.ok(!readFileSync(join(passed.logDir, f), "utf8").includes(CANARY), `${f} holds the canary even when passed`);
    record("secrets.agent-env", {
      what: "the agent's env has no GitHub token unless passGitHubToken",
      test: TEST,
      inputs: GITHUB_TOKEN_VARS.length * 2,
      losses: 0,
    });
  });

  it("no variable pointing at the session's IPC channels or credential helpers reaches the agent's process (ADR 0340)", async () => {
    // Fails on the code before ADR 0340: all of them reached it.
    const session = {
      VSCODE_IPC_HOOK_CLI: "/run/user/1000/vscode-ipc-1.sock",
      VSCODE_GIT_IPC_HANDLE: "/run/user/1000/vscode-git-2.sock",
      VSCODE_GIT_ASKPASS_MAIN: "/usr/share/code/askpass-main.js",
      GIT_ASKPASS: "/usr/share/code/askpass.sh",
      SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1",
      DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus",
    };
    const ok = { stdout: [hex(INIT, "\n", RESULT, "\n")] };
    const { result, agentEnv } = await runStage("env-ipc", ok, { ...session, ANTHROPIC_API_KEY: "sk-agent-own" });
    assert.equal(result.outcome, "success");
    for (const v of Object.keys(session)) assert.equal(agentEnv[v], undefined, `${v} reached the agent`);
    assert.equal(agentEnv.ANTHROPIC_API_KEY, "sk-agent-own");
  });
});
