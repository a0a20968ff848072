/**
 * Mocha root hooks (loaded by .mocharc.json for every mocha run): after each top-level suite (each
 * test file's outer `describe`), the process table must be as the run found it. A process the suite
 * started and left running fails that suite's "after all" hook, naming its command line, and is
 * then stopped so it cannot eat a core after the run (ADR 0191). The check itself is
 * test/support/leftover-check.ts, which the VS Code launchers share.
 */
import type { Context, Suite } from "mocha";
import { LeftoverCheck, markThisRun, SETTLE_MS } from "./leftover-check";

const leftovers = new LeftoverCheck({ mark: markThisRun() });

async function check(where: string): Promise<void> {
  const failure = await leftovers.check(where, "its last hook");
  if (failure) throw new Error(failure);
}

export const mochaHooks = {
  beforeAll(this: Context): void {
    leftovers.remember();
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
