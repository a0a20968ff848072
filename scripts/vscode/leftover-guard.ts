// The VS Code launchers' end: after their own teardown (code-server stopped by its group, the
// sandbox and Chromium stopped), nothing they started may still run. The same check as every mocha
// run's (test/support/leftover-check.ts, ADR 0191), over the whole launcher: its descendants and
// whatever carries its run mark, which code-server and the extension host inherit.
import { LeftoverCheck, markThisRun } from "../../test/support/leftover-check";

/**
 * Marks the run, runs `body` (which tears down what it started), then checks for leftovers and
 * exits: non-zero when `body` failed (returned non-zero, set process.exitCode, or threw) or left a
 * process running, each of which is printed and killed.
 */
export async function runLauncher(name: string, body: () => Promise<number | void>): Promise<never> {
  const leftovers = new LeftoverCheck({ mark: markThisRun() });
  leftovers.remember();
  let code: number;
  try {
    code = (await body()) ?? Number(process.exitCode ?? 0);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    code = 1;
  }
  const failure = await leftovers.check(name);
  if (failure) console.error(`${failure}\n${name}: FAILED (stopped the process(es) above; stop what you start)`);
  process.exit(failure ? 1 : code);
}
