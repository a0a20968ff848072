/**
 * Records the stream fixtures of the Codex and Gemini CLIs from the real binaries (installed by
 * scripts/install-agents.sh) against the scripted model servers: a successful implement Stage, a
 * usage limit, a bad key. Writes test/fixtures/{codex,gemini}-streams/*.jsonl and a README naming
 * the version that made them.
 *
 *   npx tsx scripts/record-agent-fixtures.ts
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { CliAgentRunner } from "../src/adapters/agent/cli-agent-runner";
import { createCodexRunner } from "../src/adapters/agent/codex-runner";
import { createGeminiRunner } from "../src/adapters/agent/gemini-runner";
import { implementPrompt } from "../src/core/run/prompts";
import { jsonSchemaFor } from "../src/core/run/stage-answers";
import { codexScriptedWiring, geminiScriptedWiring } from "../src/sandbox/model-server/agent-wiring";
import { startGeminiApiServer } from "../src/sandbox/model-server/gemini-api";
import { startOpenAiResponsesServer } from "../src/sandbox/model-server/openai-responses";
import type { ProviderFaultInput } from "../src/sandbox/model-server/provider-faults";
import type { ScriptedServer } from "../src/sandbox/model-server/scripted-http";
import { DEMO_FILES, DEMO_ISSUES } from "../src/sandbox/seeds/demo-project";

const ROOT = resolve(__dirname, "..");
const CACHE = process.env.TICKET_RUNNER_CACHE ?? join(process.env.HOME ?? "", ".cache", "ticket-runner");
const IDENTITY = {
  GIT_AUTHOR_NAME: "Agent",
  GIT_AUTHOR_EMAIL: "agent@ticket-runner.invalid",
  GIT_COMMITTER_NAME: "Agent",
  GIT_COMMITTER_EMAIL: "agent@ticket-runner.invalid",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

interface Agent {
  kind: "codex" | "gemini";
  binary: string;
  start(): Promise<ScriptedServer>;
  runner(server: ScriptedServer, home: string): CliAgentRunner;
}

const AGENTS: Agent[] = [
  {
    kind: "codex",
    binary: join(CACHE, "codex-0.171.0/node_modules/.bin/codex"),
    start: () => startOpenAiResponsesServer(),
    runner(server, home) {
      const w = codexScriptedWiring(server.url, home);
      return createCodexRunner({ command: [this.binary], model: "gpt-5-codex", extraArgs: w.extraArgs, baseEnv: { ...process.env, ...IDENTITY, ...w.env } });
    },
  },
  {
    kind: "gemini",
    binary: join(CACHE, "gemini-cli-0.61.0/node_modules/.bin/gemini"),
    start: () => startGeminiApiServer(),
    runner(server, home) {
      const w = geminiScriptedWiring(server.url, home);
      return createGeminiRunner({
        command: [this.binary],
        model: "gemini-2.5-pro",
        extraArgs: w.extraArgs,
        baseEnv: { ...process.env, ...IDENTITY, ...w.env },
      });
    },
  },
];

const SCENARIOS: { name: string; fault?: ProviderFaultInput; what: string }[] = [
  { name: "implement-success", what: "an implement Stage of the demo's ticket #1: files written, committed, the answer" },
  { name: "usage-limit", fault: { step: 1, answer: "rate-limit", resetInSeconds: 7200 }, what: "the same, cut by a usage limit (429) after writing the files" },
  { name: "bad-key", fault: { answer: "unauthorized", times: 0 }, what: "every request refused for a bad API key" },
];

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: "utf8" });
}

async function main(): Promise<void> {
  for (const agent of AGENTS) {
    const version = execFileSync(agent.binary, ["--version"], { encoding: "utf8" }).trim();
    const out = join(ROOT, "test/fixtures", `${agent.kind}-streams`);
    mkdirSync(out, { recursive: true });
    const lines = [
      `# ${agent.kind} stream fixtures`,
      "",
      `Recorded from the real binary (\`${agent.binary.split("/").slice(-4).join("/")} --version\`: ${version}) on ${new Date().toISOString().slice(0, 10)}`,
      "by `npx tsx scripts/record-agent-fixtures.ts`, against the scripted model server, in a clone of the demo Target.",
      "Never edit them by hand: record them again.",
      "",
    ];
    for (const s of SCENARIOS) {
      const tmp = mkdtempSync(join(tmpdir(), `tr-record-${agent.kind}-`));
      const server = await agent.start();
      try {
        if (s.fault) server.faults.add(s.fault);
        const repo = join(tmp, "repo");
        mkdirSync(join(repo, "src"), { recursive: true });
        git(tmp, ["init", "-q", "-b", "main", repo]);
        for (const [p, c] of Object.entries(DEMO_FILES)) {
          mkdirSync(join(repo, p, ".."), { recursive: true });
          writeFileSync(join(repo, p), c);
        }
        git(repo, ["add", "-A"]);
        git(repo, ["commit", "-q", "-m", "initial commit"]);
        const issue = { number: 1, ...DEMO_ISSUES[0]! };
        const result = await agent.runner(server, join(tmp, "home")).run({
          stage: "implement",
          ticket: 1,
          prompt: implementPrompt(issue, "agent/1-format-price"),
          cwd: repo,
          logDir: join(tmp, "logs"),
          logName: s.name,
          jsonSchema: jsonSchemaFor("implement"),
          timeoutMs: 120_000,
          maxTurns: 30,
        });
        copyFileSync(result.files!.stdout, join(out, `${s.name}.jsonl`));
        lines.push(`- \`${s.name}.jsonl\`: ${s.what} (outcome \`${result.outcome}\`)`);
        console.log(`${agent.kind} ${s.name}: ${result.outcome}${result.detail ? ` (${result.detail})` : ""}`);
      } finally {
        await server.stop();
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    writeFileSync(join(out, "README.md"), lines.join("\n") + "\n");
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
