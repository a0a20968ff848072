/**
 * The Claude Code adapter against a fake `claude` on PATH that replays stream-json fixtures
 * (test/fixtures/claude-streams), as a real child process with real signals.
 */
import { strict as assert } from "node:assert";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ClaudeCodeRunner } from "../../../src/adapters/agent/claude-code-runner";
import type { ClaudeCodeRunnerOptions } from "../../../src/adapters/agent/claude-code-runner";
import type { AgentEvent, StageRequest, StageResult } from "../../../src/ports/agent-runner";
import { waitFor } from "../../support/wait-for";
import { fakeClaudeSandbox, isAlive } from "./helpers";
import type { FakeClaudeSandbox } from "./helpers";

const CANARY = "ghp_CANARYcanary0123456789abcdefABCD";

describe("ClaudeCodeRunner against a fake claude on PATH", function () {
  this.timeout(60_000);
  let sb: FakeClaudeSandbox;

  beforeEach(async () => {
    sb = await fakeClaudeSandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  async function run(
    fixture: string,
    opts: { runner?: ClaudeCodeRunnerOptions; request?: Partial<StageRequest>; env?: Record<string, string> } = {},
  ): Promise<{ result: StageResult; events: AgentEvent[] }> {
    const events: AgentEvent[] = [];
    const runner = new ClaudeCodeRunner({ killGraceMs: 500, ...opts.runner, baseEnv: sb.env(fixture, opts.env) });
    const result = await runner.run({
      stage: "implement",
      ticket: 42,
      prompt: "Implement #42.\n<<<ISSUE\nDiscount twice\nbody\nISSUE>>>",
      cwd: sb.cwd,
      logDir: sb.logDir,
      logName: "implement",
      timeoutMs: 20_000,
      maxTurns: 10,
      onEvent: (e) => events.push(e),
      ...opts.request,
    });
    return { result, events };
  }

  it("runs claude -p <prompt> with stream-json, permission mode, turn limit, in the worktree, with TICKET_RUNNER_STAGE", async () => {
    const { result, events } = await run("success");
    assert.equal(result.outcome, "success");
    assert.equal(result.turns, 6);
    assert.equal(result.text, "The discount now applies once; tests pass.");
    assert.equal(result.exitCode, 0);
    const rec = sb.readRecord();
    assert.deepEqual(rec.argv, [
      "-p",
      "Implement #42.\n<<<ISSUE\nDiscount twice\nbody\nISSUE>>>",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--max-turns",
      "10",
    ]);
    assert.equal(rec.cwd, sb.cwd);
    assert.equal(rec.env.TICKET_RUNNER_STAGE, "implement");
    assert.equal(rec.env.TICKET_RUNNER_TICKET, "42");
    assert.equal(events[0]?.kind, "start");
    assert.deepEqual(events[1], { kind: "init", model: "claude-sonnet-4-5-20250929", sessionId: "8c0f5a1e-3b7d-4c2a-9e61-0d2f4b7a9c15" });
    const tools = events.filter((e) => e.kind === "tool").map((e) => (e.kind === "tool" ? `${e.name} ${e.summary}` : ""));
    assert.deepEqual(tools.slice(0, 3), ["Read src/discount.ts", "Edit src/discount.ts", "Bash npm test"]);
    const results = events.filter((e) => e.kind === "tool-result");
    assert.ok(
      results.some((e) => e.kind === "tool-result" && e.summary.startsWith("> shop@1.0.0 test")),
      JSON.stringify(results),
    );
    const last = events[events.length - 1];
    assert.equal(last?.kind, "result");
    assert.equal(last?.kind === "result" ? last.outcome : "", "success");
  });

  it("passes --model and --json-schema, and extracts structured_output from the result event", async () => {
    const schema = { type: "object", properties: { title: { type: "string" }, summary: { type: "string" } }, required: ["title", "summary"] };
    const { result } = await run("success-structured", {
      runner: { model: "claude-opus-4-1", permissionMode: "bypassPermissions" },
      request: { jsonSchema: schema },
    });
    assert.equal(result.outcome, "success");
    assert.deepEqual(result.structured, { title: "fix: apply the member discount once (#42)", summary: "renewalTotal no longer stacks the member discount." });
    const argv = sb.readRecord().argv;
    assert.equal(argv[argv.indexOf("--model") + 1], "claude-opus-4-1");
    assert.equal(argv[argv.indexOf("--permission-mode") + 1], "bypassPermissions");
    assert.deepEqual(JSON.parse(argv[argv.indexOf("--json-schema") + 1]!), schema);
  });

  describe("rate limits: only a failed session, by any one of three signs", () => {
    const cases: [string, StageResult["rateLimitSign"]][] = [
      ["rate-limit-429", "api-error-429"],
      ["rate-limit-rejected-event", "rejected-event"],
      ["rate-limit-result-wording", "result-wording"],
      ["rate-limit-stderr-wording", "stderr-wording"],
    ];
    for (const [fixture, sign] of cases) {
      it(`${fixture} => rate-limited (${sign})`, async () => {
        const { result } = await run(fixture);
        assert.equal(result.outcome, "rate-limited", result.detail);
        assert.equal(result.rateLimitSign, sign);
        assert.match(result.detail ?? "", /rate limited/);
      });
    }

    it("a success that mentions usage, session and rate limits (and a warning event, and stderr) => success", async () => {
      const { result, events } = await run("success-mentions-limits");
      assert.equal(result.outcome, "success");
      assert.equal(result.rateLimitSign, undefined);
      assert.ok(events.some((e) => e.kind === "rate-limit" && e.status === "allowed_warning"));
    });

    it("a failure with only an allowed_warning event is not a rate limit => nonzero-exit", async () => {
      const { result } = await run("failure-with-warning-only");
      assert.equal(result.outcome, "nonzero-exit");
      assert.match(result.detail ?? "", /exited 1: Error: connection reset/);
    });
  });

  it("error_max_turns => turn-capped", async () => {
    const { result } = await run("real-2.1.332-turn-capped");
    assert.equal(result.outcome, "turn-capped");
    assert.equal(result.turns, 3);
  });

  it("a hang => timed-out, and the whole process group (a grandchild too) is killed", async () => {
    const { result } = await run("hang", { request: { timeoutMs: 1500 } });
    assert.equal(result.outcome, "timed-out");
    const rec = sb.readRecord();
    assert.ok(rec.grandchildPid, "the fake started a grandchild");
    await waitFor(() => !isAlive(rec.pid) && !isAlive(rec.grandchildPid!), { what: "agent and grandchild gone", timeoutMs: 5000 });
  });

  it("an agent that ignores SIGTERM is SIGKILLed after the grace period, grandchild included", async () => {
    const { result } = await run("hang-ignores-sigterm", { request: { timeoutMs: 1000 }, runner: { killGraceMs: 300 } });
    assert.equal(result.outcome, "timed-out");
    const rec = sb.readRecord();
    await waitFor(() => !isAlive(rec.pid) && !isAlive(rec.grandchildPid!), { what: "agent and grandchild gone", timeoutMs: 5000 });
  });

  it("request.signal abort kills the group; logs were written live before it ended", async () => {
    const controller = new AbortController();
    const pending = run("hang", { request: { signal: controller.signal, timeoutMs: 60_000 } });
    const transcript = join(sb.logDir, "implement.transcript.jsonl");
    await waitFor(() => existsSync(transcript) && readFileSync(transcript, "utf8").includes('"subtype":"init"'), { what: "init in the live transcript" });
    await waitFor(() => readFileSync(join(sb.logDir, "implement.stdout"), "utf8").includes("Thinking about it"), { what: "live stdout" });
    assert.match(readFileSync(join(sb.logDir, "implement.command"), "utf8"), /claude -p /);
    const rec = await waitFor(() => (existsSync(sb.record) ? sb.readRecord() : null));
    assert.ok(isAlive(rec.pid), "still running before the abort");
    controller.abort();
    const { result } = await pending;
    assert.equal(result.outcome, "nonzero-exit");
    assert.equal(result.aborted, true);
    await waitFor(() => !isAlive(rec.pid) && !isAlive(rec.grandchildPid!), { what: "group gone", timeoutMs: 5000 });
  });

  it("a crash => nonzero-exit naming the error from stderr", async () => {
    const { result } = await run("crash");
    assert.equal(result.outcome, "nonzero-exit");
    assert.equal(result.exitCode, 2);
    assert.match(result.detail ?? "", /exited 2/);
    assert.match(readFileSync(join(sb.logDir, "implement.stderr"), "utf8"), /TypeError/);
  });

  it("an error result with exit code 0 => nonzero-exit", async () => {
    const { result } = await run("error-exit-zero");
    assert.equal(result.outcome, "nonzero-exit");
    assert.match(result.detail ?? "", /error_during_execution/);
  });

  describe("invalid-result: the stream itself is broken", () => {
    for (const [fixture, why] of [
      ["garbage", /not JSON/],
      ["truncated", /not JSON/],
      ["result-unreadable", /result event unreadable/],
      ["invalid-utf8", /not valid UTF-8/],
    ] as const) {
      it(`${fixture} => invalid-result`, async () => {
        const { result } = await run(fixture);
        assert.equal(result.outcome, "invalid-result", result.detail);
        assert.match(result.detail ?? "", why);
      });
    }

    it("a line over 10 MB => invalid-result, the line dropped (not buffered) and noted in .stdout", async () => {
      const { result } = await run("huge-line");
      assert.equal(result.outcome, "invalid-result");
      assert.match(result.detail ?? "", /over the 10485760-byte limit/);
      const stdoutFile = join(sb.logDir, "implement.stdout");
      assert.ok(statSync(stdoutFile).size < 64 * 1024, "the huge line was not written to the log");
      assert.match(readFileSync(stdoutFile, "utf8"), /dropped: over the line limit/);
    });
  });

  it("unknown event types and unknown blocks are ignored with a reason, never fatal", async () => {
    const { result, events } = await run("unknown-events");
    assert.equal(result.outcome, "success");
    const reasons = events.filter((e) => e.kind === "ignored").map((e) => (e.kind === "ignored" ? e.reason : ""));
    assert.ok(
      reasons.some((r) => r.includes('unknown event type "stream_event"')),
      reasons.join("\n"),
    );
    assert.ok(reasons.some((r) => r.includes('unknown event type "future_event_kind"')));
    assert.ok(reasons.some((r) => r.includes("rate_limit_event unreadable")));
    assert.ok(reasons.some((r) => r.includes('assistant block "thinking"')));
  });

  it("an executable that is not there => unavailable (not-installed) saying so: the environment's fault, not the ticket's", async () => {
    const { result } = await run("success", { runner: { command: ["claude-not-installed-here"] } });
    assert.equal(result.outcome, "unavailable");
    assert.equal(result.unavailable, "not-installed");
    assert.match(result.detail ?? "", /not found on PATH/);
  });

  describe("secrets", () => {
    const tokens = { GITHUB_TOKEN: CANARY, GH_TOKEN: CANARY, TICKET_RUNNER_TOKEN: CANARY };

    it("drops GitHub tokens from the agent's env and redacts them from every log, event and result", async () => {
      const { result, events } = await run("leaks-token", { env: tokens, request: { prompt: `Use ${CANARY} nowhere` } });
      assert.equal(result.outcome, "success");
      const rec = sb.readRecord();
      for (const name of Object.keys(tokens)) assert.equal(rec.env[name], undefined, `${name} reached the agent`);
      assert.ok(!JSON.stringify(rec.env).includes(CANARY));
      for (const file of readdirSync(sb.logDir)) {
        assert.ok(!readFileSync(join(sb.logDir, file), "utf8").includes(CANARY), `${file} holds the canary`);
      }
      assert.ok(!JSON.stringify(events).includes(CANARY), "an event holds the canary");
      assert.ok(!JSON.stringify(result).includes(CANARY), "the result holds the canary");
    });

    it("passes them only when configured to", async () => {
      await run("success", { env: tokens, runner: { passGitHubToken: true } });
      const rec = sb.readRecord();
      assert.equal(rec.env.GITHUB_TOKEN, CANARY);
      assert.equal(rec.env.GH_TOKEN, CANARY);
    });
  });

  describe("the .command file", () => {
    it("is the argv shell-quoted, with the env the runner set, and stores a long prompt beside it", async () => {
      const prompt = "x".repeat(5000) + " it's";
      await run("success", { request: { prompt } });
      const command = readFileSync(join(sb.logDir, "implement.command"), "utf8");
      assert.match(command, /^# ticket-runner implement Stage of #42/);
      assert.match(
        command,
        /TICKET_RUNNER_STAGE=implement TICKET_RUNNER_TICKET=42 claude -p "\$\(cat '?[^)]*implement\.prompt\.txt'?\)" --output-format stream-json --verbose/,
      );
      assert.ok(!command.includes("xxxxxxxxxx"), "the long prompt is not inlined");
      assert.equal(readFileSync(join(sb.logDir, "implement.prompt.txt"), "utf8"), prompt);
      assert.equal(sb.readRecord().argv[1], prompt, "the agent still got the prompt as one argv element");
    });

    it("inlines a short prompt, single-quoted", async () => {
      await run("success", { request: { prompt: "Fix it's $HOME `now`" } });
      const command = readFileSync(join(sb.logDir, "implement.command"), "utf8");
      assert.ok(command.includes(`claude -p 'Fix it'\\''s $HOME \`now\`' --output-format`), command);
    });

    it("sends a prompt too big for one argv element over stdin", async () => {
      const prompt = "y".repeat(300);
      const { result } = await run("success", { runner: { promptArgMaxBytes: 100 }, request: { prompt } });
      assert.equal(result.outcome, "success");
      const rec = sb.readRecord();
      assert.deepEqual(rec.argv.slice(0, 2), ["-p", "--output-format"]);
      assert.equal(rec.stdin, prompt);
      assert.match(readFileSync(join(sb.logDir, "implement.command"), "utf8"), /< '?[^\n]*implement\.prompt\.txt'?\n/);
    });
  });

  it("writes logs under a nested logName (retry/implement-2)", async () => {
    const { result } = await run("success", { request: { logName: "retry/implement-2" } });
    for (const ext of ["command", "stdout", "stderr", "transcript.jsonl"]) {
      assert.ok(existsSync(join(sb.logDir, "retry", `implement-2.${ext}`)), ext);
    }
    const lines = readFileSync(join(sb.logDir, "retry/implement-2.transcript.jsonl"), "utf8").trim().split("\n");
    assert.deepEqual(JSON.parse(lines[lines.length - 1]!).outcome, "success");
    assert.equal(result.files?.transcript, join(sb.logDir, "retry/implement-2.transcript.jsonl"));
  });
});
