/**
 * A Run: one orchestrator execution on a Host for a Target. Refusals come before the Run lock;
 * then the sweep, then the Lanes; the lock is released at the end whatever happened.
 * Front doors construct it with adapters, subscribe to `events`, and call stop() on SIGTERM.
 */
import type { LockHolder } from "../../ports/workspace";
import { Refusal } from "../errors";
import type { Config } from "../schemas/config";
import { PRODUCT_VERSION } from "../version";
import type { RunDeps, RunEnv } from "./context";
import { errorText } from "./context";
import { firstFillAnchor, frontierSnapshot, labelTrust, stripeOf } from "./frontier";
import { drainLanes } from "./lanes";
import { MergeTrain } from "./merge-train";
import { runIdFor } from "./naming";
import { RunEvents } from "./run-events";
import { TicketSources } from "./sources";
import type { RunSummary, SummaryRow } from "./summary";
import { summarize } from "./summary";
import { sweep } from "./sweep";
import { lockRefusal } from "./lock-refusal";
import { chooseMergeMethod } from "./merge-method";
import { requireWriteAccess } from "../claims/writer-access";
import { refuseActionsToken } from "./actions-token";

export interface RunOptions {
  /** A narrowed Run: only these tickets (and only their State files are swept). */
  tickets?: number[];
  /** Overrides `lanes` in the config. */
  lanes?: number;
  /** Recorded in the Run lock, e.g. `ticket-runner run --lanes 2`. */
  command?: string;
  runId?: string;
  version?: string;
}

export type StopAnswer = "stopping" | "already-stopping" | "not-running";

export class Run {
  readonly events: RunEvents;
  readonly runId: string;
  private readonly env: RunEnv;
  private readonly narrowed: number[] | null;
  private readonly laneCount: number;
  private running = false;
  private onKill: () => void = () => {};
  private readonly killed: Promise<void>;

  constructor(
    private readonly deps: RunDeps,
    private readonly config: Config,
    private readonly options: RunOptions = {},
  ) {
    this.runId = options.runId ?? runIdFor(deps.clock.now());
    this.events = new RunEvents((error) => deps.log.warn("a Run event listener failed", { error: errorText(error) }));
    this.narrowed = options.tickets?.length ? [...new Set(options.tickets)].sort((a, b) => a - b) : null;
    this.laneCount = options.lanes ?? config.lanes;
    this.killed = new Promise<void>((resolve) => (this.onKill = resolve));
    this.env = {
      deps,
      config,
      runId: this.runId,
      version: options.version ?? PRODUCT_VERSION,
      viewer: "",
      base: config.base ?? "",
      hostName: deps.host.identity().name,
      events: this.events,
      train: new MergeTrain(),
      mergeMethod: config.merge.method,
      flags: { stopping: false, stoppedAt: null, stoppedHolding: [], rateLimited: false, limitResetsAt: null, unavailable: null, killed: false },
      held: new Map(),
    };
  }

  /** Tickets the busy Lanes hold now, lowest first. */
  holding(): number[] {
    return [...this.env.held.values()].map((c) => c.ticket).sort((a, b) => a - b);
  }

  /** SIGTERM semantics: busy Lanes finish, nothing new is taken. A second stop is ignored, never a kill. */
  stop(): StopAnswer {
    if (!this.running) return "not-running";
    if (this.env.flags.stopping) return "already-stopping";
    const now = this.deps.clock.now();
    this.env.flags.stopping = true;
    this.env.flags.stoppedAt = now;
    this.env.flags.stoppedHolding = this.holding();
    const held = this.env.flags.stoppedHolding.map((n) => `#${n}`).join(" ");
    this.deps.log.info(held ? `${held} left to finish · stopped` : "nothing left to finish · stopped");
    this.events.emit({ kind: "run-stopping", holding: this.env.flags.stoppedHolding, at: now.toISOString() });
    return "stopping";
  }

  /**
   * An in-process kill (the extension shutting down): every Stage is aborted and nothing more is
   * written to the board, like a killed process. The Claims and State stay for the next Run's sweep.
   */
  kill(): void {
    if (this.env.flags.killed) return;
    this.env.flags.killed = true;
    for (const ctx of this.env.held.values()) {
      ctx.silenced = true;
      ctx.abort.abort();
    }
    this.onKill();
  }

  /** Refusals come before the lock, so none of them leaves a lock behind (docs/workspace.md). */
  private async refuseEarly(): Promise<void> {
    if (this.config.checks.length === 0) {
      throw new Refusal(
        "bad-config",
        'ticket-runner.json names no Checks, so nothing could grade the agents\' work. Add the project\'s own commands, for example "checks": [["npm", "test"]], then run `ticket-runner run` again.',
        { next: "ticket-runner run" },
      );
    }
    refuseActionsToken(await this.deps.tracker.viewer());
    // Before the lock: a reader's Run would fail at the lock's push with git's own words.
    await requireWriteAccess(this.deps.tracker, "a Run", this.options.command ?? "ticket-runner run");
    if (!this.env.base) this.env.base = await this.deps.tracker.defaultBranch();
    const choice = chooseMergeMethod(this.deps.tracker.repo, this.config.merge.method, await this.deps.tracker.mergeMethods());
    this.env.mergeMethod = choice.method;
    if (choice.note) this.deps.log.info(choice.note);
    // Not a repository, no remote, a detached or dirty checkout, State files from an older pipeline.
    await this.deps.workspace.preflight(this.env.base);
  }

  async start(): Promise<RunSummary> {
    if (this.running) throw new Error("this Run has already started");
    this.running = true;
    const { workspace, host, clock, log, tracker } = this.deps;
    const rows: SummaryRow[] = [];
    const extra: string[] = [];
    // What the Run ended with, read when it ends (the flags and the extra lines change while it runs).
    const summarizeRun = () =>
      summarize({
        runId: this.runId,
        rows,
        narrowed: this.narrowed !== null,
        stoppedAt: this.env.flags.stoppedAt,
        stoppedHolding: this.env.flags.stoppedHolding,
        rateLimited: this.env.flags.rateLimited,
        limitResetsAt: this.env.flags.limitResetsAt,
        unavailable: this.env.flags.unavailable,
        extraLines: extra,
      });
    // With lockScope "host", the Frontier as this Run starts, before any Run started with it can
    // have claimed: where its first picks start is read from it (ADR 0441). Beside the refusals.
    const startFrontier = this.narrowed === null && this.config.lockScope === "host" ? frontierSnapshot(tracker, this.config) : null;
    await this.refuseEarly();

    const holder: LockHolder = {
      host: host.identity(),
      pid: host.pid(),
      command: this.options.command ?? "ticket-runner run",
      runId: this.runId,
      startedAt: clock.now().toISOString(),
      processStartTime: await host.processStartTime(host.pid()),
    };
    const lock = await workspace.acquireLock(holder);
    if (!lock.ok) throw lock.refusal ?? lockRefusal(lock.standing, lock.holder);
    for (const gone of lock.tookOverFrom ?? []) {
      log.info(`took the Run lock over from run ${gone.runId} (pid ${gone.pid}), whose process on this Host is gone`);
    }

    this.events.emit({ kind: "run-started", runId: this.runId, lanes: this.laneCount, narrowedTo: this.narrowed, at: clock.now().toISOString() });
    try {
      try {
        workspace.writeRunVersion(this.runId, this.env.version);
      } catch (error) {
        log.warn("could not write version.txt for this Run", { error: errorText(error) });
      }
      this.env.viewer = await tracker.viewer();
      const only = this.narrowed ? new Set(this.narrowed) : null;
      // Records of other Hosts' live Runs are theirs: the sweep leaves them without a take (ADR 0441).
      const stranded = await sweep(this.env, only, new Map((lock.peers ?? []).map((p) => [p.runId, p])));
      const trust = this.deps.trust ?? labelTrust(tracker, this.config.labels.ready, log);
      const record = (row: SummaryRow, lane: number | null) => {
        rows.push(row);
        this.events.emit({ kind: "ticket-ended", lane, ticket: row.ticket, ending: row.ending, line: row.line, at: clock.now().toISOString() });
      };
      // Other Hosts' Runs seen in the lock spread this one's first picks (ADR 0441); a narrowed Run picks only its own list.
      const peers = lock.peers ?? [];
      const snapshot = (await startFrontier) ?? [];
      const company = {
        anchor: firstFillAnchor(snapshot, peers, holder, this.laneCount),
        picks: this.laneCount,
        others: peers.length > 0,
        // Read again at the first pick after the first fill: by then every Run started with it holds its lock.
        // A Run whose own read came before the others' locks saw none of them yet: it asks too.
        stripe: this.config.lockScope === "host" ? async () => stripeOf(snapshot, await workspace.lockPeers(), holder, this.laneCount) : undefined,
      };
      if (company.others)
        log.info(
          `${peers.length} other Host${peers.length === 1 ? "" : "s"}' Run${peers.length === 1 ? "" : "s"} hold${peers.length === 1 ? "s" : ""} a lock on this Target: ${company.anchor === null ? "picks spread over the lowest" : `the first picks start at #${company.anchor}`} (ADR 0441)`,
        );
      const sources = new TicketSources(
        this.env,
        stranded,
        this.narrowed,
        trust,
        (ticket, reason) => record({ ticket, ending: "skipped", line: reason }, null),
        company,
      );
      await drainLanes(this.env, this.laneCount, sources, record, this.killed);
    } catch (error) {
      if (this.env.flags.killed) throw error;
      log.error("the Run failed", { error: errorText(error) });
      extra.push(`The Run failed: ${errorText(error)}`);
      const summary = summarizeRun();
      await this.releaseLock(summary.lines);
      const failed = { ...summary, exitCode: Math.max(summary.exitCode, 1) };
      this.events.emit({ kind: "run-ended", exitCode: failed.exitCode, lines: failed.lines, at: clock.now().toISOString() });
      return failed;
    }
    if (this.env.flags.killed) {
      // A kill writes nothing, the lock included: the next Run on this Host takes it over.
      const summary = summarize({
        runId: this.runId,
        rows,
        narrowed: false,
        stoppedAt: null,
        stoppedHolding: [],
        rateLimited: false,
        extraLines: ["Killed: the Claims stay; the next Run resumes them."],
      });
      return summary;
    }
    const summary = summarizeRun();
    await this.releaseLock(summary.lines);
    this.events.emit({ kind: "run-ended", exitCode: summary.exitCode, lines: summary.lines, at: clock.now().toISOString() });
    return summary;
  }

  /** A Run that cannot release the lock says so, and keeps its own exit code (docs/endings.md). */
  private async releaseLock(lines: string[]): Promise<void> {
    try {
      await this.deps.workspace.releaseLock(this.runId);
    } catch (error) {
      const line = `Could not release the Run lock: ${errorText(error)}. The next Run on this Host takes it over by itself.`;
      this.deps.log.error(line);
      lines.splice(lines.length - 1, 0, line);
    }
  }
}
