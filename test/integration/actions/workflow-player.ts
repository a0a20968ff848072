/**
 * Plays the workflow `init --actions` writes, read from its YAML: the `plan` job's scripts and each
 * matrix `host` job's steps run as real bash processes, in order, with the environment GitHub
 * Actions gives a step (GITHUB_ACTIONS, GITHUB_REPOSITORY, GITHUB_STEP_SUMMARY, RUNNER_TEMP, a fresh
 * RUNNER_TEMP and checkout per job) plus the step's own `env:` with its `${{ }}` expressions
 * evaluated. `uses:` steps are what the runner would do: the App token step hands out the token
 * given, checkout is a fresh clone, setup-node and the caches find what is already there (the agent
 * cache holds the agent's command; ticket-runner itself is the checksummed copy committed in the
 * Target, installed by the workflow's own step). An expression, `uses:` or `if:`
 * the player does not know fails the test, so the workflow cannot grow past what is played.
 */
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import type { RunProcess } from "../../reliability/chaos/run-process";
import { killTree } from "../../reliability/chaos/run-process";

const DEMO_AGENT = resolve(__dirname, "../../../dist/demo-agent.js");

const stepSchema = z
  .object({
    name: z.string().optional(),
    id: z.string().optional(),
    if: z.string().optional(),
    uses: z.string().optional(),
    run: z.string().optional(),
    env: z.record(z.union([z.string(), z.number(), z.boolean()])).optional(),
    with: z.record(z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .strict();
export type Step = z.infer<typeof stepSchema>;
const jobSchema = z
  .object({
    if: z.string().optional(),
    needs: z.string().optional(),
    "runs-on": z.string(),
    "timeout-minutes": z.number(),
    outputs: z.record(z.string()).optional(),
    strategy: z
      .object({ "fail-fast": z.boolean(), matrix: z.object({ host: z.string() }).strict() })
      .strict()
      .optional(),
    steps: z.array(stepSchema),
  })
  .strict();
export const workflowSchema = z
  .object({
    name: z.string(),
    on: z.record(z.unknown()),
    concurrency: z.object({ group: z.string(), "cancel-in-progress": z.boolean() }).strict(),
    permissions: z.record(z.string()),
    jobs: z.object({ plan: jobSchema, host: jobSchema }).strict(),
  })
  .strict();
export type Workflow = z.infer<typeof workflowSchema>;

export function readWorkflow(text: string): Workflow {
  return workflowSchema.parse(parse(text));
}

/** Expression -> value; `${{ x }}` with an x not in here throws. */
export type Contexts = Map<string, string>;

export function evaluate(text: string, ctx: Contexts): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expr: string) => {
    // A cache key's hashFiles(): any stable text will do, the caches are played as hits.
    const hashed = /^hashFiles\('([^']+)'\)$/.exec(expr);
    if (hashed) return `hash-of-${hashed[1]}`;
    const v = ctx.get(expr);
    if (v === undefined) throw new Error(`the workflow player does not know \${{ ${expr} }}: teach it (test/integration/actions/workflow-player.ts)`);
    return v;
  });
}

/** The `if:` forms the workflow uses: `a == 'x'`, `a != 'x'`, joined by `||`, with or without `${{ }}`. */
export function condition(text: string | undefined, ctx: Contexts): boolean {
  if (text === undefined) return true;
  const bare = text.trim().replace(/^\$\{\{\s*([\s\S]*?)\s*\}\}$/, "$1");
  return bare.split("||").some((part) => {
    const m = /^\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*$/.exec(part);
    if (!m) throw new Error(`the workflow player cannot evaluate if: ${text}`);
    const v = ctx.get(m[1]!);
    if (v === undefined) throw new Error(`the workflow player does not know ${m[1]} in if: ${text}`);
    return m[2] === "==" ? v === m[3] : v !== m[3];
  });
}

export interface JobRunner {
  /** The runner's own directory: RUNNER_TEMP and the step files live under it. */
  dir: string;
  /** The checked-out Target (GITHUB_WORKSPACE); null for a job that checks nothing out. */
  workspace: string | null;
  /** The environment every step starts from: the runner's PATH, HOME, Actions' variables. */
  baseEnv: Record<string, string>;
  /** What a `uses:` step does on this runner; returns the step's outputs. */
  uses: (step: Step, with_: Record<string, string>) => Promise<Record<string, string>>;
}

export interface StepResult {
  name: string;
  skipped: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  summary: string;
}

export class JobPlay {
  readonly results: StepResult[] = [];
  readonly outputs = new Map<string, string>();
  private current: RunProcess | null = null;
  private killed = false;
  readonly done: Promise<"success" | "failure" | "cancelled">;

  constructor(
    readonly label: string,
    steps: Step[],
    ctx: Contexts,
    private readonly runner: JobRunner,
  ) {
    this.done = this.play(steps, ctx).catch((e: unknown) => {
      this.error = e instanceof Error ? e.message : String(e);
      return "failure" as const;
    });
  }

  /** Set when the player itself could not play a step (an unknown expression or action). */
  error: string | null = null;

  /** The runner vanishes: the running step's whole process tree is SIGKILLed, no later step runs. */
  async kill(): Promise<void> {
    this.killed = true;
    if (this.current) await killTree(this.current);
  }

  private async play(steps: Step[], ctx: Contexts): Promise<"success" | "failure" | "cancelled"> {
    const temp = join(this.runner.dir, "temp");
    mkdirSync(temp, { recursive: true });
    const pathFile = join(this.runner.dir, "github_path");
    const envFile = join(this.runner.dir, "github_env");
    writeFileSync(pathFile, "");
    writeFileSync(envFile, "");
    const stepCtx = new Map(ctx);
    stepCtx.set("runner.temp", temp);
    stepCtx.set("runner.os", "Linux");
    for (const [i, step] of steps.entries()) {
      const name = step.name ?? step.uses ?? step.run?.split("\n")[0] ?? `step ${i + 1}`;
      if (this.killed) return "cancelled";
      if (!condition(step.if, stepCtx)) {
        this.results.push({ name, skipped: true, code: 0, signal: null, stdout: "", stderr: "", summary: "" });
        continue;
      }
      const with_ = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, evaluate(String(v), stepCtx)]));
      let outputs: Record<string, string> = {};
      if (step.uses) outputs = await this.runner.uses(step, with_);
      else if (step.run !== undefined) {
        const r = await this.shell(name, i, evaluate(step.run, stepCtx), step, stepCtx, { pathFile, envFile, temp });
        this.results.push(r);
        if (this.killed) return "cancelled";
        if (r.code !== 0) return "failure";
        outputs = readKeyValues(join(this.runner.dir, `output-${i}`));
      }
      if (step.id) for (const [k, v] of Object.entries(outputs)) stepCtx.set(`steps.${step.id}.outputs.${k}`, v);
    }
    for (const [k, v] of stepCtx) if (k.startsWith("steps.")) this.outputs.set(k, v);
    return "success";
  }

  private async shell(
    name: string,
    i: number,
    script: string,
    step: Step,
    ctx: Contexts,
    files: { pathFile: string; envFile: string; temp: string },
  ): Promise<StepResult> {
    const scriptFile = join(this.runner.dir, `step-${i}.sh`);
    writeFileSync(scriptFile, script);
    const summary = join(this.runner.dir, `summary-${i}.md`);
    const outputFile = join(this.runner.dir, `output-${i}`);
    writeFileSync(summary, "");
    writeFileSync(outputFile, "");
    const added = readFileSync(files.pathFile, "utf8").split("\n").filter(Boolean).reverse();
    const env: Record<string, string> = {
      ...this.runner.baseEnv,
      ...readKeyValues(files.envFile),
      RUNNER_TEMP: files.temp,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: outputFile,
      GITHUB_PATH: files.pathFile,
      GITHUB_ENV: files.envFile,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(String(v), ctx)])),
    };
    env.PATH = [...added, this.runner.baseEnv.PATH ?? ""].join(":");
    // Actions runs a bash step as `bash --noprofile --norc -eo pipefail {0}`.
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", scriptFile], {
      cwd: this.runner.workspace && existsSync(this.runner.workspace) ? this.runner.workspace : this.runner.dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once("close", (code, signal) => res({ code, signal })));
    this.current = { child, pid: child.pid!, startedAt: Date.now(), stdout: () => out, stderr: () => err, exited };
    const { code, signal } = await exited;
    this.current = null;
    return { name, skipped: false, code, signal, stdout: out, stderr: err, summary: readFileSync(summary, "utf8") };
  }
}

/** `key=value` lines (GITHUB_OUTPUT / GITHUB_ENV, single-line form). */
function readKeyValues(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/**
 * What the agent cache restores. The played Target's Runs use the demo agent, so the cache holds it
 * where the installed CLI looks for it (beside itself), and a stand-in for the workflow's agent command.
 */
export function restoreToolsCache(dir: string, agentBinary: string): void {
  mkdirSync(join(dir, "bin"), { recursive: true });
  const shim = join(dir, "bin", agentBinary);
  writeFileSync(shim, "#!/bin/sh\nexit 0\n");
  chmodSync(shim, 0o755);
  copyFileSync(DEMO_AGENT, join(dir, "bin", "demo-agent.js"));
}
