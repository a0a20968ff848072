/**
 * The real Codex CLI and the real Gemini CLI (pinned, installed by scripts/install-agents.sh) run
 * Stages of the demo Target's tickets in real git worktrees, against scripted model servers that
 * speak their providers' APIs (src/sandbox/model-server/): success, a usage limit then a resume of
 * the same session, a quota, a bad key, a provider outage, a kill mid-stream, a missing binary.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { CliAgentRunner, CliStageResult } from "../../../src/adapters/agent/cli-agent-runner";
import { createCodexRunner } from "../../../src/adapters/agent/codex-runner";
import { createGeminiRunner } from "../../../src/adapters/agent/gemini-runner";
import { uncheckedCriteria } from "../../../src/core/run/criteria";
import { implementPrompt, verifyPrompt } from "../../../src/core/run/prompts";
import { jsonSchemaFor } from "../../../src/core/run/stage-answers";
import type { AgentEvent, StageName } from "../../../src/ports/agent-runner";
import { codexScriptedWiring, geminiScriptedWiring } from "../../../src/sandbox/model-server/agent-wiring";
import type { AgentWiring } from "../../../src/sandbox/model-server/agent-wiring";
import { startGeminiApiServer } from "../../../src/sandbox/model-server/gemini-api";
import { startOpenAiResponsesServer } from "../../../src/sandbox/model-server/openai-responses";
import type { ProviderFaultInput } from "../../../src/sandbox/model-server/provider-faults";
import type { ScriptedServer } from "../../../src/sandbox/model-server/scripted-http";
import { DEMO_FILES, DEMO_ISSUES } from "../../../src/sandbox/seeds/demo-project";
import { git, gitEnv, makeRemote, makeTempDir } from "../../support/git-fixtures";
import type { RemoteFixture } from "../../support/git-fixtures";
import { codexBinary, geminiBinary } from "../../support/real-agents";
import { allTests } from "../../support/rounds";
import { waitFor } from "../../support/wait-for";

const codeAnswer = z.object({ title: z.string().min(1), summary: z.string() }).strict();
const verifyAnswer = z.object({
  criteria: z.array(z.object({ criterion: z.string(), verdict: z.enum(["met", "unmet", "unverifiable"]), evidence: z.string() }).strict()),
});

/** Pids of the processes whose working directory is `dir` (Linux /proc). */
function processesIn(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) === dir) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

interface AgentCase {
  kind: "codex" | "gemini";
  binary: () => string;
  server: () => Promise<ScriptedServer>;
  wiring: (url: string, home: string) => AgentWiring;
  runner: (opts: { command: string[]; extraArgs: string[]; baseEnv: NodeJS.ProcessEnv }) => CliAgentRunner;
  /** Words each CLI uses for a bad key, as the runner reports it. */
  badKey: RegExp;
}

const CASES: AgentCase[] = [
  {
    kind: "codex",
    binary: codexBinary,
    server: () => startOpenAiResponsesServer(),
    wiring: codexScriptedWiring,
    runner: (o) => createCodexRunner({ ...o, model: "gpt-5-codex", killGraceMs: 1000 }),
    badKey: /401 Unauthorized/,
  },
  // The real Gemini CLI is the slowest (a minute and more here): `npm test` covers this layer with
  // the real Codex here and Claude Code's recorded streams (real-streams); test:all adds it (ADR 0370).
  ...(allTests() ? [geminiCase()] : []),
];

function geminiCase(): AgentCase {
  return {
    kind: "gemini",
    binary: geminiBinary,
    server: () => startGeminiApiServer(),
    wiring: geminiScriptedWiring,
    runner: (o) => createGeminiRunner({ ...o, model: "gemini-2.5-pro", killGraceMs: 1000, checks: [["node", "--test"]] }),
    badKey: /API key not valid/,
  };
}

for (const c of CASES) {
  describe(`the real ${c.kind} CLI against its scripted model server`, function () {
    this.timeout(120_000);
    let server: ScriptedServer;
    let fx: RemoteFixture;
    let clone: string;
    let logDir: string;
    let home: string;
    let wiring: AgentWiring;
    let lanes = 0;

    before(async () => {
      c.binary();
    });
    beforeEach(async () => {
      server = await c.server();
      fx = await makeRemote({ files: DEMO_FILES });
      clone = await fx.clone("clone");
      logDir = await makeTempDir(`tr-${c.kind}-logs-`);
      home = await makeTempDir(`tr-${c.kind}-home-`);
      wiring = c.wiring(server.url, home);
    });
    afterEach(async () => {
      await server.stop();
      await fx.cleanup();
      await rm(logDir, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    });

    async function lane(ticket: number): Promise<string> {
      lanes += 1;
      const path = join(clone, ".worktrees", `ticket-${ticket}-${lanes}`);
      await git(clone, ["worktree", "add", "-q", "-b", `agent/${ticket}-${lanes}`, path, "origin/main"]);
      return path;
    }

    function runner(command: string[] = [c.binary()]): CliAgentRunner {
      // A home of the agent's own, as gitEnv keeps the machine's git config out: the CLIs run their
      // commands in login shells, which would otherwise run this machine's rc files (here, a pyenv
      // rehash that waits 60 s on a lock a killed shell left behind).
      return c.runner({ command, extraArgs: wiring.extraArgs, baseEnv: { ...gitEnv(), HOME: home, ...wiring.env } });
    }

    async function stage(
      cwd: string,
      name: StageName,
      ticket: number,
      opts: { resumeSession?: string; signal?: AbortSignal; command?: string[] } = {},
    ): Promise<{ result: CliStageResult; events: AgentEvent[] }> {
      const issue = { number: ticket, ...DEMO_ISSUES[ticket - 1]! };
      const prompt = name === "verify" ? verifyPrompt(issue, uncheckedCriteria(issue.body)) : implementPrompt(issue, `agent/${ticket}`);
      const events: AgentEvent[] = [];
      const result = await runner(opts.command).run({
        stage: name,
        ticket,
        prompt,
        cwd,
        logDir,
        logName: `${ticket}-${name}-${Date.now()}`,
        jsonSchema: jsonSchemaFor(name),
        timeoutMs: 90_000,
        maxTurns: 30,
        onEvent: (e) => events.push(e),
        ...opts,
      });
      return { result, events };
    }

    function fault(f: ProviderFaultInput): void {
      server.faults.add(f);
    }

    it("implements a ticket (files written, committed) and verifies it, answering in the Stage's shape", async () => {
      const wt = await lane(1);
      const impl = await stage(wt, "implement", 1);
      assert.equal(impl.result.outcome, "success", impl.result.detail);
      assert.equal(codeAnswer.parse(impl.result.structured).title, "Add a formatPrice helper");
      assert.equal(await git(wt, ["log", "-1", "--format=%s"]), "Add a formatPrice helper");
      assert.equal(await git(wt, ["status", "--porcelain"]), "", "nothing left uncommitted");
      assert.ok(impl.result.sessionId, "the session id is kept for a resume");
      assert.ok(impl.events.some((e) => e.kind === "init" && e.sessionId === impl.result.sessionId));
      assert.ok(
        impl.events.some((e) => e.kind === "tool" && e.name === "Bash" && /^git add -- /.test(e.summary)),
        JSON.stringify(impl.events),
      );

      const verify = await stage(wt, "verify", 1);
      assert.equal(verify.result.outcome, "success", verify.result.detail);
      const grades = verifyAnswer.parse(verify.result.structured).criteria;
      assert.deepEqual(
        grades.map((g) => g.verdict),
        ["met", "met"],
      );
      assert.match(grades[0]!.evidence, /^src\/format\.js:\d+ contains/);
    });

    it("a usage limit mid-Stage is rate-limited with its reset time; resuming the session continues at the interrupted step", async () => {
      const wt = await lane(1);
      fault({ ticket: 1, stage: "implement", step: 1, answer: "rate-limit", resetInSeconds: 7200 });
      const before = Date.now();
      const first = await stage(wt, "implement", 1);
      assert.equal(first.result.outcome, "rate-limited", first.result.detail);
      assert.ok(first.result.limitResetsAt !== undefined, `a reset time: ${first.result.detail}`);
      // Codex shows the reset to the minute in local time; Gemini in seconds.
      assert.ok(Math.abs(Date.parse(first.result.limitResetsAt) - (before + 7200_000)) < 120_000, `resets ${first.result.limitResetsAt}`);
      assert.equal(await git(wt, ["log", "-1", "--format=%s"]), "initial commit", "nothing committed yet");
      const session = first.result.sessionId!;
      const spent = server.requests().length;

      const resumed = await stage(wt, "implement", 1, { resumeSession: session });
      assert.equal(resumed.result.outcome, "success", resumed.result.detail);
      assert.equal(await git(wt, ["log", "-1", "--format=%s"]), "Add a formatPrice helper");
      const after = server
        .requests()
        .slice(spent)
        .filter((r) => r.stage === "implement");
      assert.deepEqual(
        after.map((r) => r.step),
        [1, 2],
        "the resumed session did not write the files again",
      );
    });

    it("an exhausted quota is rate-limited, not the ticket's failure", async () => {
      const wt = await lane(1);
      fault({ answer: "quota", times: 0 });
      const { result } = await stage(wt, "implement", 1);
      assert.equal(result.outcome, "rate-limited", result.detail);
    });

    it("a bad key makes the agent unavailable: named, and nothing committed", async () => {
      const wt = await lane(1);
      fault({ answer: "unauthorized", times: 0 });
      const { result } = await stage(wt, "implement", 1);
      assert.equal(result.outcome, "unavailable", result.detail);
      assert.equal(result.unavailable, "not-signed-in", result.detail);
      assert.match(result.detail ?? "", c.badKey);
      assert.equal(await git(wt, ["log", "-1", "--format=%s"]), "initial commit");
    });

    it("a provider outage (500 on every request) makes the agent unavailable", async () => {
      const wt = await lane(1);
      fault({ answer: "server-error", times: 0 });
      const { result } = await stage(wt, "implement", 1);
      assert.equal(result.outcome, "unavailable", result.detail);
      assert.equal(result.unavailable, "provider-down", result.detail);
    });

    it("a kill mid-stream ends the Stage and its whole process group", async () => {
      const wt = await lane(1);
      fault({ ticket: 1, stage: "implement", step: 1, answer: "hold" });
      const abort = new AbortController();
      const running = stage(wt, "implement", 1, { signal: abort.signal });
      await waitFor(() => server.requests().some((r) => r.answer === "hold"), { timeoutMs: 60_000 });
      assert.ok(processesIn(wt).length > 0, "the agent runs in the worktree");
      abort.abort();
      const { result } = await running;
      assert.equal(result.outcome, "nonzero-exit");
      assert.equal(result.aborted, true);
      await waitFor(() => processesIn(wt).length === 0 || null, { timeoutMs: 10_000 });
    });

    it("a missing binary makes the agent unavailable", async () => {
      const wt = await lane(1);
      const { result } = await stage(wt, "implement", 1, { command: [join(home, "no-such-agent")] });
      assert.equal(result.outcome, "unavailable");
      assert.equal(result.unavailable, "not-installed");
      assert.match(result.detail ?? "", /not found/);
    });
  });
}
