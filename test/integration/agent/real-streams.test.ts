/**
 * The Claude Code adapter against streams the real `claude` 2.1.332 printed, talking to the scripted
 * model server (src/sandbox/model-server/), replayed by the fake `claude` on PATH with the real exit
 * codes and stderr. Each case is a sign the adapter reads; test/fixtures/claude-streams/README.md
 * says how each was recorded. The whole loop with the binary itself is test/integration/real-agent/.
 */
import { strict as assert } from "node:assert";
import { ClaudeCodeRunner } from "../../../src/adapters/agent/claude-code-runner";
import type { AgentEvent, StageRequest, StageResult } from "../../../src/ports/agent-runner";
import { TranscriptFormatter } from "../../../src/core/text/transcript-format";
import { fakeClaudeSandbox } from "./helpers";
import type { FakeClaudeSandbox } from "./helpers";

describe("ClaudeCodeRunner on streams recorded from the real claude 2.1.332", function () {
  this.timeout(60_000);
  let sb: FakeClaudeSandbox;
  beforeEach(async () => (sb = await fakeClaudeSandbox()));
  afterEach(async () => sb.cleanup());

  async function run(fixture: string, request: Partial<StageRequest> = {}): Promise<{ result: StageResult; events: AgentEvent[] }> {
    const events: AgentEvent[] = [];
    const runner = new ClaudeCodeRunner({ killGraceMs: 500, baseEnv: sb.env(`real-2.1.332-${fixture}`) });
    const result = await runner.run({
      stage: "implement",
      ticket: 7,
      prompt: "p",
      cwd: sb.cwd,
      logDir: sb.logDir,
      logName: "implement",
      timeoutMs: 20_000,
      maxTurns: 20,
      onEvent: (e) => events.push(e),
      ...request,
    });
    return { result, events };
  }

  it("a success: its session, and turns as the CLI counts them", async () => {
    const { result } = await run("success");
    assert.equal(result.outcome, "success");
    assert.equal(result.turns, 5);
    assert.deepEqual(result.structured, { title: "Add a greeting", summary: "Wrote src/greet.js." });
    assert.match(result.sessionId ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(result.permissionDenials, undefined);
  });

  it("acceptEdits without allowed commands: a success whose git add and git commit were refused, named", async () => {
    const { result } = await run("acceptedits-denied");
    assert.equal(result.outcome, "success");
    assert.deepEqual(result.permissionDenials, ["Bash: git add -- src/greet.js", "Bash: git commit -m 'Add a greeting'"]);
  });

  it("the turn limit", async () => {
    const { result } = await run("turn-capped");
    assert.equal(result.outcome, "turn-capped");
  });

  for (const [fixture, name, resets] of [
    ["limit-five-hour", "5-hour limit", "2026-12-01T15:40:02.000Z"],
    ["limit-weekly", "weekly limit", "2026-12-03T22:13:32.000Z"],
    ["limit-opus", "Opus limit", "2026-12-03T22:13:42.000Z"],
    ["limit-sonnet", "Sonnet limit", "2026-12-03T22:13:49.000Z"],
  ] as const) {
    it(`the subscription's ${name}: rate-limited, with its reset time; "allowed" events are not warnings`, async () => {
      const { result, events } = await run(fixture);
      assert.equal(result.outcome, "rate-limited");
      assert.equal(result.rateLimitSign, "api-error-429");
      assert.equal(result.limitName, name);
      assert.equal(result.limitResetsAt, resets);
      const shown = events.filter((e) => e.kind === "rate-limit").flatMap((e) => new TranscriptFormatter().format(e));
      assert.deepEqual(shown, ["⏸ rate limit reached (rejected)"]);
    });
  }

  it("an API key's 429: rate-limited", async () => {
    const { result } = await run("api-key-429");
    assert.equal(result.outcome, "rate-limited");
  });

  it("cut by the Stage's time limit while the CLI retried a 429: rate-limited, not timed-out", async () => {
    const { result } = await run("retrying-429", { timeoutMs: 2000 });
    assert.equal(result.outcome, "rate-limited");
    assert.equal(result.rateLimitSign, "retrying-429");
  });

  for (const [fixture, reason] of [
    ["overloaded-529", "provider-down"],
    ["server-error-500", "provider-down"],
    ["connection-lost", "provider-down"],
    ["not-logged-in", "not-signed-in"],
    ["bypass-as-root", "refused-to-start"],
  ] as const) {
    it(`${fixture}: unavailable (${reason}), the environment's fault`, async () => {
      const { result } = await run(fixture);
      assert.equal(result.outcome, "unavailable");
      assert.equal(result.unavailable, reason);
    });
  }

  it("--resume of a session the CLI does not have: resumeFailed, so the core starts a fresh one", async () => {
    const { result } = await run("resume-not-found", { resumeSession: "11111111-2222-3333-4444-555555555555" });
    assert.equal(result.resumeFailed, true);
    const argv = sb.readRecord().argv as string[];
    assert.equal(argv[argv.indexOf("--resume") + 1], "11111111-2222-3333-4444-555555555555");
  });

  it("passes the allowed commands as settings permissions.allow", async () => {
    await run("success", {
      allowedCommands: [
        ["git", "commit"],
        ["npm", "run", "typecheck"],
        ["node", "--test"],
      ],
    });
    const argv = sb.readRecord().argv as string[];
    const settings = JSON.parse(argv[argv.indexOf("--settings") + 1]!);
    assert.deepEqual(settings, { permissions: { allow: ["Bash(git commit:*)", "Bash(npm run typecheck:*)", "Bash(node --test:*)"] } });
  });
});
