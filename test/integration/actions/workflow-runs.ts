/**
 * Workflow runs of the played workflow, and its `concurrency` as GitHub documents it: a run
 * triggered while another of the same group is in progress waits (pending); a newer pending run
 * cancels the older pending one and takes its place; with `cancel-in-progress: true` the run in
 * progress is cancelled instead. A run is its `plan` job, then the `host` matrix the plan chose.
 */
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import type { Contexts, Step, Workflow } from "./workflow-player";
import { condition, evaluate, JobPlay, restoreToolsCache } from "./workflow-player";

export type Trigger = { event: "schedule" } | { event: "workflow_dispatch"; inputs: Partial<Record<"hosts" | "lanes" | "tickets", string>> };

export interface Playground {
  workflow: Workflow;
  /** owner/name: GITHUB_REPOSITORY. */
  repo: string;
  /** What `actions/create-github-app-token` hands out: an installation token. */
  appToken: string;
  vars: Record<string, string>;
  secrets: Record<string, string>;
  dir: string;
  /** `actions/checkout`: a fresh clone of the Target in `dir`, no credentials kept. */
  checkout: (dir: string) => Promise<void>;
  /** The agent command the workflow installs (its cache is played as a hit). */
  agentBinary: string;
  /** The runner machine's own environment (PATH, HOME, and what the harness needs). */
  machineEnv: Record<string, string>;
}

export type RunStatus = "pending" | "in_progress" | "completed" | "cancelled";

export class WorkflowRun {
  status: RunStatus = "pending";
  plan: JobPlay | null = null;
  hosts: JobPlay[] = [];
  private settle!: () => void;
  /** Resolves once the run is completed or cancelled. */
  readonly finished = new Promise<void>((res) => (this.settle = res));

  constructor(
    readonly id: number,
    readonly trigger: Trigger,
  ) {}

  end(status: "completed" | "cancelled"): void {
    this.status = status;
    this.settle();
  }
}

export class WorkflowPlayer {
  readonly runs: WorkflowRun[] = [];
  /** What happened, in order: "1001 in_progress", "1002 pending", "1002 cancelled (superseded)". */
  readonly events: string[] = [];
  private inProgress: WorkflowRun | null = null;
  private pending: WorkflowRun | null = null;
  private nextId = 1001;

  constructor(private readonly pg: Playground) {}

  get machineEnv(): Record<string, string> {
    return this.pg.machineEnv;
  }

  trigger(trigger: Trigger): WorkflowRun {
    const run = new WorkflowRun(this.nextId++, trigger);
    this.runs.push(run);
    const c = this.pg.workflow.concurrency;
    if (this.inProgress && c["cancel-in-progress"]) {
      const old = this.inProgress;
      this.events.push(`${old.id} cancel-in-progress`);
      void Promise.all([old.plan, ...old.hosts].map((j) => j?.kill()));
    }
    if (this.inProgress) {
      if (this.pending) {
        this.pending.end("cancelled");
        this.events.push(`${this.pending.id} cancelled (superseded by ${run.id} in group ${c.group})`);
      }
      this.pending = run;
      this.events.push(`${run.id} pending`);
      return run;
    }
    this.start(run);
    return run;
  }

  private start(run: WorkflowRun): void {
    this.inProgress = run;
    run.status = "in_progress";
    this.events.push(`${run.id} in_progress`);
    void this.execute(run).then(
      () => this.completed(run),
      (e: unknown) => {
        this.events.push(`${run.id} player error: ${e instanceof Error ? e.message : String(e)}`);
        this.completed(run);
      },
    );
  }

  private completed(run: WorkflowRun): void {
    run.end("completed");
    this.events.push(`${run.id} completed`);
    this.inProgress = null;
    const next = this.pending;
    this.pending = null;
    if (next) this.start(next);
  }

  private contexts(run: WorkflowRun): Contexts {
    const ctx: Contexts = new Map([
      ["github.event_name", run.trigger.event],
      ["github.run_id", String(run.id)],
      ["github.run_attempt", "1"],
      ["github.repository", this.pg.repo],
    ]);
    const declared = (this.pg.workflow.on.workflow_dispatch as { inputs?: Record<string, { default?: unknown }> } | undefined)?.inputs ?? {};
    for (const [name, spec] of Object.entries(declared)) {
      // A scheduled run has no inputs: `${{ inputs.x }}` is empty. A dispatch gets the form's value or its default.
      const value = run.trigger.event === "workflow_dispatch" ? (run.trigger.inputs[name as "hosts"] ?? String(spec.default ?? "")) : "";
      ctx.set(`inputs.${name}`, value);
    }
    for (const [k, v] of Object.entries(this.pg.secrets)) ctx.set(`secrets.${k}`, v);
    for (const [k, v] of Object.entries(this.pg.vars)) ctx.set(`vars.${k}`, v);
    return ctx;
  }

  private job(run: WorkflowRun, label: string, steps: Step[], ctx: Contexts): JobPlay {
    const dir = join(this.pg.dir, `run-${run.id}`, label);
    mkdirSync(dir, { recursive: true });
    const workspace = join(dir, "work");
    const baseEnv = {
      ...this.pg.machineEnv,
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_REPOSITORY: this.pg.repo,
      GITHUB_RUN_ID: String(run.id),
      GITHUB_RUN_ATTEMPT: "1",
      GITHUB_EVENT_NAME: run.trigger.event,
      GITHUB_WORKSPACE: workspace,
      RUNNER_OS: "Linux",
    };
    return new JobPlay(label, steps, ctx, {
      dir,
      workspace,
      baseEnv,
      uses: async (step, with_): Promise<Record<string, string>> => {
        const action = (step.uses ?? "").split("@")[0];
        if (action === "actions/create-github-app-token") {
          if (!with_["app-id"] || !with_["private-key"]) throw new Error("the App token step got no app-id or private-key");
          return { token: this.pg.appToken };
        }
        if (action === "actions/checkout") {
          await this.pg.checkout(workspace);
          return {};
        }
        if (action === "actions/setup-node") return {};
        if (action === "actions/cache") {
          // The agent cache hits; node_modules is not needed by the Run.
          if (with_.path?.endsWith("ticket-runner-tools")) restoreToolsCache(with_.path, this.pg.agentBinary);
          return {};
        }
        throw new Error(`the workflow player does not know the action ${step.uses}`);
      },
    });
  }

  private async execute(run: WorkflowRun): Promise<void> {
    const wf = this.pg.workflow;
    const ctx = this.contexts(run);
    if (!condition(wf.jobs.plan.if, ctx)) return;
    run.plan = this.job(run, "plan", wf.jobs.plan.steps, ctx);
    if ((await run.plan.done) !== "success") return;
    for (const [name, expr] of Object.entries(wf.jobs.plan.outputs ?? {}))
      ctx.set(`needs.plan.outputs.${name}`, evaluate(expr, new Map([...ctx, ...run.plan.outputs])));
    const matrixExpr = /^\$\{\{\s*fromJSON\((.+)\)\s*\}\}$/.exec(wf.jobs.host.strategy?.matrix.host ?? "");
    if (!matrixExpr) throw new Error(`the workflow player expects matrix.host to be \${{ fromJSON(...) }}, not ${wf.jobs.host.strategy?.matrix.host}`);
    const hosts = JSON.parse(ctx.get(matrixExpr[1]!) ?? "null") as unknown;
    if (!Array.isArray(hosts)) throw new Error(`matrix.host is not a list: ${String(hosts)}`);
    run.hosts = hosts.map((h) => this.job(run, `host-${String(h)}`, wf.jobs.host.steps, new Map([...ctx, ["matrix.host", String(h)]])));
    await Promise.all(run.hosts.map((j) => j.done));
  }

  /** Kills every job still running (the end of a test). */
  async stopAll(): Promise<void> {
    if (this.pending) this.pending.end("cancelled");
    this.pending = null;
    await Promise.all(this.runs.flatMap((r) => [r.plan, ...r.hosts]).map((j) => j?.kill()));
  }
}
