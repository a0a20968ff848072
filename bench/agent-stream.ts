/**
 * What reading an agent's stream costs the process that hosts the Run (the CLI, or VS Code's
 * extension host). The demo agent emits `burst:<n>` events; we read them
 *   baseline: split lines and JSON.parse them, nothing else;
 *   runner:   through ClaudeCodeRunner (zod validation, redaction, live log files, AgentEvents,
 *             the transcript formatter and a LineBatcher as an output channel would use).
 * Prints wall time, events per second, the worst event-loop delay during the run, and the ratio.
 * Goals (exit 1 when missed): no event-loop stall of STALL_GOAL_MS or more while the runner reads
 * the burst; the runner at most RATIO_GOAL× the bare parse's wall time.
 *
 *   npm run bench:agent-stream -- [--events 20000]
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { build } from "esbuild";
import { createDemoAgentRunner } from "../src/adapters/agent/demo-agent-runner";
import { TranscriptFormatter } from "../src/core/text/transcript-format";
import { LineBatcher } from "../src/vscode/run/transcript-batcher";

const ROOT = resolve(__dirname, "..");
const n = Number(process.argv[process.argv.indexOf("--events") + 1] ?? "") || 20_000;
const STALL_GOAL_MS = 100;
const RATIO_GOAL = 5;

function prompt(): string {
  const block = { files: { "bench.txt": "x\n" }, behaviours: [`burst:${n}`] };
  return `Bench\n<<<ISSUE\nBench the stream\n\`\`\`ticket-runner-demo\n${JSON.stringify(block)}\n\`\`\`\nISSUE>>>`;
}

async function git(cwd: string, args: string[]): Promise<void> {
  await new Promise<void>((ok, fail) => {
    const c = spawn("git", args, {
      cwd,
      stdio: "ignore",
      env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b.invalid", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b.invalid" },
    });
    c.on("close", (code) => (code === 0 ? ok() : fail(new Error(`git ${args[0]} ${code}`))));
  });
}

async function freshRepo(root: string, name: string): Promise<string> {
  const dir = join(root, name);
  await git(root, ["init", "-q", "-b", "main", dir]);
  await git(dir, ["commit", "-q", "--allow-empty", "-m", "init"]);
  return dir;
}

async function baseline(distDir: string, cwd: string): Promise<{ ms: number; events: number }> {
  const started = performance.now();
  let events = 0;
  let rest = "";
  await new Promise<void>((done) => {
    const child = spawn(process.execPath, [join(distDir, "demo-agent.js"), "-p", prompt(), "--output-format", "stream-json", "--verbose"], {
      cwd,
      env: { ...process.env, TICKET_RUNNER_STAGE: "implement", TICKET_RUNNER_TICKET: "1", TICKET_RUNNER_DEMO_STATE: join(cwd, "..", "state-b") },
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const l of lines) {
        if (!l) continue;
        JSON.parse(l);
        events += 1;
      }
    });
    child.on("close", () => done());
  });
  return { ms: performance.now() - started, events };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "tr-bench-agent-"));
  try {
    const distDir = join(root, "dist");
    await build({
      entryPoints: [join(ROOT, "src/sandbox/demo-agent-main.ts")],
      outfile: join(distDir, "demo-agent.js"),
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      logLevel: "silent",
    });

    const base = await baseline(distDir, await freshRepo(root, "a"));

    const cwd = await freshRepo(root, "b");
    const runner = createDemoAgentRunner(distDir, { baseEnv: { ...process.env, TICKET_RUNNER_DEMO_STATE: join(root, "state-r") } });
    const formatter = new TranscriptFormatter();
    let appends = 0;
    let events = 0;
    const batcher = new LineBatcher(() => (appends += 1));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const result = await runner.run({
      stage: "implement",
      ticket: 1,
      prompt: prompt(),
      cwd,
      logDir: join(root, "logs"),
      logName: "implement",
      timeoutMs: 600_000,
      maxTurns: 10,
      onEvent: (e) => {
        events += 1;
        batcher.push(formatter.format(e));
      },
    });
    batcher.dispose();
    const ms = performance.now() - started;
    delay.disable();

    const row = (name: string, t: number, ev: number): string =>
      `${name.padEnd(10)} ${t.toFixed(0).padStart(7)} ms  ${Math.round((ev / t) * 1000)
        .toString()
        .padStart(8)} events/s  (${ev} events)`;
    console.log(`agent stream: demo agent burst:${n}, outcome ${result.outcome}`);
    console.log(row("baseline", base.ms, base.events));
    console.log(row("runner", ms, events));
    const worst = delay.max / 1e6;
    const ratio = ms / base.ms;
    console.log(
      `runner: ${appends} batched appends; worst event-loop delay ${worst.toFixed(1)} ms (goal < ${STALL_GOAL_MS} ms), p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
    );
    console.log(`ratio runner/baseline: ${ratio.toFixed(2)} (goal ≤ ${RATIO_GOAL})`);
    const missed = [
      worst >= STALL_GOAL_MS ? `a ${worst.toFixed(0)} ms stall` : "",
      ratio > RATIO_GOAL ? `runner ${ratio.toFixed(2)}× the bare parse` : "",
      result.outcome !== "success" ? `outcome ${result.outcome}` : "",
    ].filter(Boolean);
    if (missed.length > 0) {
      console.log(`MISSED: ${missed.join("; ")}`);
      process.exitCode = 1;
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench:agent-stream failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
