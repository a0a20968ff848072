/**
 * Mocha root hooks (loaded by .mocharc.json for every mocha run): after each top-level suite (each
 * test file's outer `describe`), the process table must be as the run found it. A process the suite
 * started and left running fails that suite's "after all" hook, naming its command line, and is
 * then stopped so it cannot eat a core after the run (ADR 0191).
 *
 * "Ours" is a live (not zombie) descendant of this mocha process, or any process started with this
 * run's TICKET_RUNNER_TEST_RUN in its environment: that also finds an orphan whose parent died and
 * which init adopted. A process is known by pid and start time, so a recycled pid is never blamed.
 */
import type { Context, Suite } from "mocha";
import { randomBytes } from "node:crypto";
import { descendantsOf, describeProcesses, processKey, processTable, processesWithEnv } from "./processes";
import type { ProcessRow } from "./processes";

const MARK = "TICKET_RUNNER_TEST_RUN";
/** How long a suite's processes get to finish exiting after its last hook (they may be mid-exit). */
const SETTLE_MS = Number(process.env.TICKET_RUNNER_LEFTOVER_SETTLE_MS ?? 15_000);

// Every process this run starts inherits the mark (unless it is given an environment of its own).
process.env[MARK] = `${process.pid}-${randomBytes(6).toString("hex")}`;
const mark = `${MARK}=${process.env[MARK]}`;

/** Processes present before the first test, and leftovers already blamed on an earlier suite. */
const known = new Set<string>();

function ours(): ProcessRow[] {
  const table = processTable();
  const byKey = new Map<string, ProcessRow>();
  for (const row of [...descendantsOf(process.pid, table), ...processesWithEnv(mark, table)]) byKey.set(processKey(row), row);
  return [...byKey.values()];
}

function leftovers(): ProcessRow[] {
  return ours().filter((row) => !known.has(processKey(row)));
}

async function settle(): Promise<ProcessRow[]> {
  const deadline = Date.now() + SETTLE_MS;
  for (let left = leftovers(); ; left = leftovers()) {
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
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

async function check(where: string): Promise<void> {
  const left = await settle();
  if (left.length === 0) return;
  for (const row of left) known.add(processKey(row));
  stop(left);
  throw new Error(`${where} left ${left.length} process(es) running after its last hook:\n${describeProcesses(left)}`);
}

export const mochaHooks = {
  beforeAll(this: Context): void {
    for (const row of ours()) known.add(processKey(row));
    const root: Suite | undefined = this.test?.parent;
    for (const suite of root?.suites ?? []) {
      suite.afterAll("no process left running", async function (this: Context) {
        this.timeout(SETTLE_MS + 10_000);
        await check(`"${suite.title}"`);
      });
    }
  },
  // Tests outside any describe, and anything a suite's check could not see.
  async afterAll(this: Context): Promise<void> {
    this.timeout(SETTLE_MS + 10_000);
    await check("the run");
  },
};
