/**
 * The Codex and Gemini dialects read the streams their real binaries printed (fixtures recorded by
 * scripts/record-agent-fixtures.ts), and endings are decided the same way for both.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CliAgentRunner, CliDialect, CliStageRequest } from "../../../src/adapters/agent/cli-agent-runner";
import { afterDelay, decideCliEnding, nextClockTime } from "../../../src/adapters/agent/cli-ending";
import type { CliSessionFacts } from "../../../src/adapters/agent/cli-ending";
import { innerCommand } from "../../../src/adapters/agent/codex-events";
import { CODEX_WORDING, codexDialect } from "../../../src/adapters/agent/codex-runner";
import { Sandbox } from "../../../src/adapters/isolation/sandbox";
import { GEMINI_WORDING, geminiDialect, geminiPolicy } from "../../../src/adapters/agent/gemini-runner";
import { agentFor } from "../../../src/app/compose-run";
import { configSchema } from "../../../src/core/schemas/config";
import { fencedAnswerInstruction, readFencedAnswer } from "../../../src/core/run/fenced-answer";
import { jsonSchemaFor } from "../../../src/core/run/stage-answers";
import type { AgentEvent } from "../../../src/ports/agent-runner";
import type { Log } from "../../../src/ports/log";

const FIXTURES = join(__dirname, "../../fixtures");

function request(over: Partial<CliStageRequest> = {}): CliStageRequest {
  return {
    stage: "implement",
    ticket: 1,
    prompt: "p",
    cwd: "/w",
    logDir: "/tmp/x",
    logName: "implement",
    jsonSchema: jsonSchemaFor("implement"),
    timeoutMs: 60_000,
    maxTurns: 30,
    ...over,
  };
}

/** The worktree the fixture was recorded in: where its first write went, less the file. */
function recordedCwd(file: string): string {
  const m = /"file_path":"([^"]+)\/src\/format\.js"/.exec(readFileSync(join(FIXTURES, file), "utf8"));
  return m ? m[1]! : "/nowhere";
}

function replay(
  dialect: CliDialect,
  file: string,
  req = request(),
): { events: AgentEvent[]; end: ReturnType<ReturnType<CliDialect["reader"]>["end"]>; damage: string[] } {
  const reader = dialect.reader(req, recordedCwd(file));
  const events: AgentEvent[] = [];
  const damage: string[] = [];
  readFileSync(join(FIXTURES, file), "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .forEach((l, i) => {
      const out = reader.onLine(l, i + 1);
      events.push(...out.events);
      if (out.damage) damage.push(out.damage);
    });
  return { events, end: reader.end(), damage };
}

function facts(over: Partial<CliSessionFacts> = {}): CliSessionFacts {
  return {
    aborted: false,
    timedOut: false,
    exitCode: 0,
    signal: null,
    damage: [],
    stderrTail: "",
    spawnError: null,
    spawnMissing: false,
    timeoutMs: 60_000,
    completed: true,
    failures: [],
    turns: 3,
    turnCapped: false,
    maxTurns: 30,
    ...over,
  };
}

const NOW = Date.parse("2026-12-01T14:00:00Z");

describe("the Codex dialect on Codex CLI 0.171.0's own streams", () => {
  it("a successful implement: the session id, the --output-schema answer, tools as Bash lines, no damage", () => {
    const { events, end, damage } = replay(codexDialect("gpt-5-codex"), "codex-streams/implement-success.jsonl");
    assert.deepEqual(damage, []);
    assert.equal(end.completed, true);
    assert.match(end.sessionId ?? "", /^[0-9a-f-]{36}$/);
    assert.deepEqual(end.structured, { title: "Add a formatPrice helper", summary: "Wrote src/format.js, test/format.test.js." });
    assert.ok(events.some((e) => e.kind === "tool" && e.name === "Bash" && e.summary.startsWith("git add -- src/format.js")));
    assert.equal(decideCliEnding(facts({ completed: end.completed, failures: end.failures }), CODEX_WORDING, NOW).outcome, "success");
  });

  it("a usage limit: rate-limited, with the reset the CLI printed", () => {
    const { end } = replay(codexDialect(undefined), "codex-streams/usage-limit.jsonl");
    assert.equal(end.completed, false);
    const d = decideCliEnding(facts({ exitCode: 1, completed: false, failures: end.failures }), CODEX_WORDING, NOW);
    assert.equal(d.outcome, "rate-limited");
    assert.match(d.detail ?? "", /usage limit/);
    assert.ok(d.resetsAt !== undefined && d.resetsAt > NOW);
  });

  it("a bad key: the agent is unavailable, not the ticket's failure", () => {
    const { end } = replay(codexDialect(undefined), "codex-streams/bad-key.jsonl");
    const d = decideCliEnding(facts({ exitCode: 1, completed: false, failures: end.failures }), CODEX_WORDING, NOW);
    assert.equal(d.outcome, "nonzero-exit");
    assert.equal(d.unavailable, "not-signed-in");
    assert.match(d.detail ?? "", /401 Unauthorized/);
  });

  it("shows the command inside Codex's shell wrapper", () => {
    assert.equal(innerCommand(`/bin/bash -lc 'git commit -m '\\''x'\\'''`), "git commit -m 'x'");
    assert.equal(innerCommand(`/bin/bash -lc "git add -- a && git commit -m 'A b'"`), "git add -- a && git commit -m 'A b'");
    assert.equal(innerCommand("ls"), "ls");
  });

  it("stops a session past the turn cap (Codex has none of its own)", () => {
    const reader = codexDialect(undefined).reader(request({ maxTurns: 1 }), "/w");
    const started = (n: number): string =>
      JSON.stringify({ type: "item.started", item: { id: `i${n}`, type: "command_execution", command: "ls", status: "in_progress" } });
    assert.equal(reader.onLine(started(1), 1).stop, false);
    assert.equal(reader.onLine(started(2), 2).stop, true);
    assert.equal(reader.end().turnCapped, true);
  });
});

describe("the Gemini dialect on Gemini CLI 0.61.0's own streams", () => {
  it("a successful implement: the session id, the fenced answer, Write/Bash lines as Claude's read", () => {
    const { events, end, damage } = replay(geminiDialect({}), "gemini-streams/implement-success.jsonl");
    assert.deepEqual(damage, []);
    assert.equal(end.completed, true);
    assert.match(end.sessionId ?? "", /^[0-9a-f-]{36}$/);
    assert.deepEqual(end.structured, { title: "Add a formatPrice helper", summary: "Wrote src/format.js, test/format.test.js." });
    assert.ok(
      events.some((e) => e.kind === "tool" && e.name === "Write" && e.summary === "src/format.js"),
      JSON.stringify(events.filter((e) => e.kind === "tool")),
    );
    assert.ok(events.some((e) => e.kind === "tool" && e.name === "Bash"));
  });

  it("a usage limit is rate-limited; a bad key makes the agent unavailable", () => {
    const limit = replay(geminiDialect({}), "gemini-streams/usage-limit.jsonl").end;
    assert.equal(decideCliEnding(facts({ exitCode: 1, completed: false, failures: limit.failures }), GEMINI_WORDING, NOW).outcome, "rate-limited");
    const bad = replay(geminiDialect({}), "gemini-streams/bad-key.jsonl").end;
    const d = decideCliEnding(facts({ exitCode: 144, completed: false, failures: bad.failures }), GEMINI_WORDING, NOW);
    assert.equal(d.unavailable, "not-signed-in");
    assert.match(d.detail ?? "", /API key not valid/);
  });

  it("the policy allows the Stage's git commands and each Check, as TOML strings", () => {
    const toml = geminiPolicy([
      ["npm", "test"],
      ["node", "--test", 'a "b"'],
    ]);
    assert.match(toml, /toolName = "run_shell_command"/);
    assert.match(toml, /"git commit"/);
    assert.match(toml, /"npm test"/);
    assert.match(toml, /"node --test a \\"b\\""/);
    assert.doesNotMatch(toml, /"git push"/);
  });

  it("asks for the fenced answer only when the Stage has a schema", () => {
    const d = geminiDialect({});
    assert.match(d.prompt(request()), /```ticket-runner-answer/);
    assert.equal(d.prompt(request({ jsonSchema: undefined })), "p");
  });
});

describe("endings of CLI agents", () => {
  it("a clean success is never rate-limited, whatever it said along the way", () => {
    assert.equal(decideCliEnding(facts({ stderrTail: "rate limit warning\n" }), CODEX_WORDING, NOW).outcome, "success");
  });
  it("timed out while retrying an outage: the agent is unavailable; timed out otherwise: timed-out", () => {
    const retrying = decideCliEnding(
      facts({
        timedOut: true,
        exitCode: null,
        signal: "SIGTERM",
        completed: false,
        stderrTail: "Attempt 2 failed with status 503. Retrying with backoff... UNAVAILABLE\n",
      }),
      GEMINI_WORDING,
      NOW,
    );
    assert.equal(retrying.outcome, "nonzero-exit");
    assert.equal(retrying.unavailable, "provider-down");
    assert.equal(
      decideCliEnding(facts({ timedOut: true, exitCode: null, signal: "SIGTERM", completed: false, stderrTail: "working\n" }), GEMINI_WORDING, NOW).outcome,
      "timed-out",
    );
  });
  it("turn cap, missing binary, a truncated stream and damage each say so", () => {
    assert.equal(decideCliEnding(facts({ turnCapped: true, exitCode: null, signal: "SIGTERM", completed: false }), CODEX_WORDING, NOW).outcome, "turn-capped");
    const missing = decideCliEnding(facts({ spawnError: 'could not start "codex": not found on PATH', exitCode: null }), CODEX_WORDING, NOW);
    assert.equal(missing.unavailable, "not-installed");
    assert.match(missing.detail ?? "", /not found/);
    assert.equal(decideCliEnding(facts({ completed: false }), CODEX_WORDING, NOW).outcome, "invalid-result");
    assert.equal(decideCliEnding(facts({ damage: ["line 3 is not JSON"] }), CODEX_WORDING, NOW).outcome, "invalid-result");
  });
  it("reads reset times: a clock time (next such moment) and a delay", () => {
    const now = new Date(2026, 11, 1, 14, 0, 0).getTime();
    assert.equal(nextClockTime("try again at 3:19 PM.", now), new Date(2026, 11, 1, 15, 19, 0).getTime());
    assert.equal(nextClockTime("try again at 1:05 PM.", now), new Date(2026, 11, 2, 13, 5, 0).getTime());
    // Codex 0.171.0 names the day when the reset is not today (seen at 22:17 for a reset at 00:10).
    const late =
      "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 2nd, 2026 12:10 AM.";
    assert.equal(nextClockTime(late, new Date(2026, 11, 1, 22, 17, 0).getTime()), new Date(2026, 11, 2, 0, 10, 0).getTime());
    assert.equal(nextClockTime("try again at Jan 1st, 2027 9:30 AM", now), new Date(2027, 0, 1, 9, 30, 0).getTime());
    assert.equal(afterDelay("Suggested retry after 3600s.", now), now + 3_600_000);
    assert.equal(afterDelay("Please retry in 37.5s.", now), now + 37_500);
    assert.equal(afterDelay("no time here", now), null);
  });
});

describe("fenced answers", () => {
  it("takes the last ticket-runner-answer block, and says why when there is none or it is not JSON", () => {
    const text = 'x\n```ticket-runner-answer\n{"a":1}\n```\nthen\n```ticket-runner-answer\n{"a":2}\n```\n';
    assert.deepEqual(readFencedAnswer(text), { ok: true, value: { a: 2 } });
    assert.equal(readFencedAnswer("```json\n{}\n```").ok, false);
    const bad = readFencedAnswer("```ticket-runner-answer\n{nope\n```");
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? "" : bad.why, /not valid JSON/);
    assert.match(fencedAnswerInstruction({ type: "object" }), /"type":"object"/);
  });
});

const quiet: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe("agent.kind picks the runner", () => {
  it("codex and gemini get their runners, with the config's model and extra args", async () => {
    const codex = agentFor(configSchema.parse({ agent: { kind: "codex", model: "gpt-5-codex", args: ["-c", "x=1"] } }), {
      env: {},
      log: quiet,
    }) as CliAgentRunner;
    assert.equal(codex.name, "codex");
    const built = (await codex.argsFor(request({ cwd: "/nonexistent" }), "/tmp/s.json")).args;
    assert.deepEqual(built.slice(0, 2), ["exec", "--json"]);
    assert.ok(built.includes("x=1") && built.includes("gpt-5-codex") && built.includes("/tmp/s.json"));
    const gemini = agentFor(configSchema.parse({ checks: [["npm", "test"]], agent: { kind: "gemini" } }), { env: {}, log: quiet }) as CliAgentRunner;
    assert.equal(gemini.name, "gemini");
  });

  it("codex leaves the boundary to the Run's sandbox inside it, and on Linux outside it too (ADR 0290, ADR 0291)", async () => {
    const args = async (sandbox?: Sandbox): Promise<string[]> =>
      (
        await (agentFor(configSchema.parse({ agent: { kind: "codex" } }), { env: {}, log: quiet, sandbox }) as CliAgentRunner).argsFor(
          request({ cwd: "/nonexistent" }),
          null,
        )
      ).args;
    const bypass = (a: string[]) => a.includes("--dangerously-bypass-approvals-and-sandbox") && !a.includes('sandbox_mode="workspace-write"');
    assert.ok(bypass(await args(new Sandbox({ mode: "sandbox" }))));
    if (process.platform === "linux") assert.ok(bypass(await args(new Sandbox({ mode: "none" }))));
    // Elsewhere (macOS's Seatbelt) Codex's own sandbox keeps the Stage to the worktree and its git dirs.
    const own = (await codexDialect(undefined, [], false, "darwin").buildArgs({ request: request({ cwd: "/nonexistent" }), schemaFile: null, viaStdin: false }))
      .args;
    assert.ok(own.includes('sandbox_mode="workspace-write"') && !own.includes("--dangerously-bypass-approvals-and-sandbox"), own.join(" "));
    const linux = (
      await codexDialect(undefined, [], false, "linux").buildArgs({ request: request({ cwd: "/nonexistent" }), schemaFile: null, viaStdin: false })
    ).args;
    assert.ok(bypass(linux), linux.join(" "));
    // In a real checkout (this repository's) the git directories a commit writes are named writable.
    const here = (await codexDialect(undefined, [], false, "darwin").buildArgs({ request: request({ cwd: process.cwd() }), schemaFile: null, viaStdin: false }))
      .args;
    assert.ok(
      here.some((a) => /^sandbox_workspace_write\.writable_roots=\[".*\.git.*"\]$/.test(a)),
      here.join(" "),
    );
  });
});
