/**
 * The one leftover-process check, shared by mocha's root hooks (test/support/leftover-processes.ts)
 * and the VS Code launchers (scripts/vscode/leftover-guard.ts): what a run started must be gone
 * when it ends, and what is not gone is named and stopped (ADR 0191).
 *
 * "Ours" is a live (not zombie) descendant of the run's process, or any process started with the
 * run's mark in its environment: that also finds an orphan whose parent died and which init
 * adopted. A process is known by pid and start time, so a recycled pid is never blamed.
 */
import { randomBytes } from "node:crypto";
import { descendantsOf, describeProcesses, processKey, processTable, processesWithEnv } from "./processes";
import type { ProcessRow } from "./processes";

export const RUN_MARK = "TICKET_RUNNER_TEST_RUN";
/** How long a run's processes get to finish exiting after its teardown (they may be mid-exit). */
export const SETTLE_MS = Number(process.env["TICKET_RUNNER_LEFTOVER_SETTLE_MS"] ?? 15_000);

/**
 * Gives this process a fresh run mark, which every process it starts inherits (unless given an
 * environment of its own: then add `RUN_MARK` to it). Returns the environment entry to look for.
 */
export function markThisRun(): string {
  process.env[RUN_MARK] = `${process.pid}-${randomBytes(6).toString("hex")}`;
  return `${RUN_MARK}=${process.env[RUN_MARK]}`;
}

export interface LeftoverCheckOptions {
  /** The environment entry ("NAME=value") that marks the run's processes. */
  mark: string;
  /** Whose descendants are ours. Default: this process. */
  root?: number;
  settleMs?: number;
}

export class LeftoverCheck {
  /** Processes present at the start, and leftovers already reported. */
  private readonly known = new Set<string>();
  private readonly root: number;
  private readonly settleMs: number;

  constructor(private readonly opts: LeftoverCheckOptions) {
    this.root = opts.root ?? process.pid;
    this.settleMs = opts.settleMs ?? SETTLE_MS;
  }

  ours(): ProcessRow[] {
    const table = processTable();
    const byKey = new Map<string, ProcessRow>();
    for (const row of [...descendantsOf(this.root, table), ...processesWithEnv(this.opts.mark, table)]) byKey.set(processKey(row), row);
    return [...byKey.values()];
  }

  /** What is ours now belongs to no later check: call once at the start. */
  remember(): void {
    for (const row of this.ours()) this.known.add(processKey(row));
  }

  /**
   * Waits up to the settle deadline for the run's new processes to exit. Returns null when they
   * did; else kills exactly those still there and returns a message naming each command line.
   */
  async check(where: string, after = "its teardown"): Promise<string | null> {
    const left = await this.settle();
    if (left.length === 0) return null;
    for (const row of left) this.known.add(processKey(row));
    stop(left);
    return `${where} left ${left.length} process(es) running after ${after}:\n${describeProcesses(left)}`;
  }

  private leftovers(): ProcessRow[] {
    return this.ours().filter((row) => !this.known.has(processKey(row)));
  }

  private async settle(): Promise<ProcessRow[]> {
    const deadline = Date.now() + this.settleMs;
    for (let left = this.leftovers(); ; left = this.leftovers()) {
      if (left.length === 0 || Date.now() >= deadline) return left;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function stop(rows: readonly ProcessRow[]): void {
  const now = new Map(processTable().map((row) => [row.pid, row]));
  for (const row of rows) {
    // Only the very process found: its pid may have been reused meanwhile.
    if (now.get(row.pid)?.startTime !== row.startTime) continue;
    try {
      process.kill(row.pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}
