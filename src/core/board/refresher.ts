/**
 * Keeps the board current at no cost while idle. Each tick sends one conditional poll; only a
 * change costs a refetch. Between refetches the model is rebuilt from what was fetched (times in
 * the Run column move on, local claims are re-read from disk) without a request.
 * A failed fetch never empties the board: the last good picture stays, with the error beside it.
 * Nothing here throws to its caller; the tree view's getChildren reads `view()` only.
 */
import type { PollResult } from "../../ports/board-source";
import type { Clock } from "../../ports/clock";
import type { Log } from "../../ports/log";
import { buildBoard } from "./build";
import type { LoadCost } from "./load";
import { describeBoardError, type BoardError } from "./source-error";
import type { BoardFilter, BoardInput, BoardModel, LocalClaim } from "./types";

export interface BoardRefresherOptions {
  load(): Promise<{ input: BoardInput; cost: LoadCost }>;
  poll(): Promise<PollResult>;
  readLocal(): Promise<LocalClaim[]>;
  clock: Clock;
  log: Log;
  /**
   * The level of the "board fetch failed" log line. "debug" where the caller reports the failure
   * itself (the CLI's one-shot `board` ends with it), so it is said once; "warn" by default (the
   * extension's polling board, whose tree shows it but whose log should keep it too).
   */
  failureLog?: "warn" | "debug";
}

export interface BoardView {
  /** The last good picture, rebuilt for now; null before the first successful fetch. */
  model: BoardModel | null;
  /** The last fetch's failure, until a fetch succeeds. */
  error: BoardError | null;
  loading: boolean;
  fetchedAt: Date | null;
}

export type TickOutcome = "refetched" | "unchanged" | "failed";

export class BoardRefresher {
  private input: BoardInput | null = null;
  private fetchedAt: Date | null = null;
  private error: BoardError | null = null;
  private failures = 0;
  private serverInterval: number | null = null;
  private inflight: Promise<TickOutcome> | null = null;
  private readonly listeners = new Set<() => void>();
  /** What the last refetch cost, for logs and the benchmark. */
  lastCost: LoadCost | null = null;

  constructor(private readonly opts: BoardRefresherOptions) {}

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Pure: reads state, builds the model for the current time. Never throws. */
  view(filter: BoardFilter = "all"): BoardView {
    let model: BoardModel | null = null;
    if (this.input) {
      try {
        model = buildBoard({ ...this.input, now: this.opts.clock.now() }, filter);
      } catch (e) {
        // buildBoard is total over validated input; this guards the tree view all the same.
        this.opts.log.error("building the board failed", { error: e instanceof Error ? e.message : String(e) });
      }
    }
    return { model, error: this.error, loading: this.inflight !== null, fetchedAt: this.fetchedAt };
  }

  /** A full refetch now (Refresh, Retry). Joins a fetch already in flight. */
  refresh(): Promise<TickOutcome> {
    return this.once(() => this.fetch());
  }

  /** The idle step: one conditional poll; a refetch only when it reports a change (or after a failure). */
  tick(): Promise<TickOutcome> {
    return this.once(async () => {
      if (this.input === null || this.error !== null) {
        // Prime the poller first, so the change the fetch is about to see is not seen twice.
        await this.poll().catch(() => undefined);
        return this.fetch();
      }
      let polled: PollResult;
      try {
        polled = await this.poll();
      } catch (e) {
        return this.fail(e);
      }
      if (polled.changed) return this.fetch();
      await this.rereadLocal();
      return "unchanged";
    });
  }

  /** How long to wait before the next tick: the setting, or longer when the server or a failure says so. */
  nextDelayMs(settingSeconds: number): number {
    const base = Math.max(settingSeconds, this.serverInterval ?? 0) * 1000;
    if (!this.error) return base;
    if (this.error.retryAt) return Math.max(base, this.error.retryAt.getTime() - this.opts.clock.now().getTime());
    return Math.min(base * 2 ** Math.min(this.failures, 5), 15 * 60_000);
  }

  private once(work: () => Promise<TickOutcome>): Promise<TickOutcome> {
    if (this.inflight) return this.inflight;
    const run = work().finally(() => {
      this.inflight = null;
      this.emit();
    });
    this.inflight = run;
    this.emit();
    return run;
  }

  private async poll(): Promise<PollResult> {
    const result = await this.opts.poll();
    if (result.pollIntervalSeconds !== null) this.serverInterval = result.pollIntervalSeconds;
    return result;
  }

  private async fetch(): Promise<TickOutcome> {
    try {
      const { input, cost } = await this.opts.load();
      this.input = input;
      this.fetchedAt = this.opts.clock.now();
      this.error = null;
      this.failures = 0;
      this.lastCost = cost;
      this.opts.log.debug("board fetched", { issues: input.issues.length, requests: cost.requests, points: cost.points ?? undefined });
      return "refetched";
    } catch (e) {
      return this.fail(e);
    }
  }

  private fail(e: unknown): TickOutcome {
    this.error = describeBoardError(e, this.opts.clock.now());
    this.failures += 1;
    this.opts.log[this.opts.failureLog ?? "warn"](`board fetch failed: ${this.error.message}`, { reason: this.error.reason });
    return "failed";
  }

  private async rereadLocal(): Promise<void> {
    if (!this.input) return;
    try {
      this.input = { ...this.input, local: await this.opts.readLocal() };
    } catch (e) {
      this.opts.log.warn("reading the run root failed", { error: e instanceof Error ? e.message : String(e) });
    }
  }

  private emit(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch (e) {
        this.opts.log.error("a board listener threw", { error: e instanceof Error ? e.message : String(e) });
      }
    }
  }
}
