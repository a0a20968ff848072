/**
 * The leftover-process check every mocha run loads (test/support/leftover-processes.ts) fails the
 * suite that left a process running, names its command line, blames no other suite, and stops it;
 * in a serial run and in mocha's parallel mode (`npm test`'s integration and reliability runs), where
 * each worker process loads the check for itself and checks the files it runs (ADR 0320).
 */
import { strict as assert } from "node:assert";
import path from "node:path";
import { processTable } from "../../support/processes";
import { runNodeCaptured } from "../../support/run-captured";
import { waitFor } from "../../support/wait-for";

const ROOT = path.resolve(__dirname, "../../..");
const FIXTURE = path.join(ROOT, "test/fixtures/leftover/leaves-a-process.ts");
const CLEAN_FIXTURE = path.join(ROOT, "test/fixtures/leftover/cleans-up.ts");

function runMocha(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  return runNodeCaptured([path.join(ROOT, "node_modules/mocha/bin/mocha.js"), "--reporter", "spec", ...args], {
    cwd: ROOT,
    env: { TICKET_RUNNER_LEFTOVER_SETTLE_MS: "500" },
  });
}

async function stoppedLeftover(out: string): Promise<void> {
  const pid = Number(/pid (\d+) \(parent \d+, group \d+\): sleep 3600/.exec(out)?.[1]);
  assert.ok(pid > 0, out);
  // The check stopped it (SIGKILL is immediate; init reaps the orphan).
  await waitFor(() => !processTable().some((p) => p.pid === pid && p.command === "sleep 3600" && p.state !== "Z"), {
    what: `the leftover sleep (pid ${pid}) to be stopped`,
  });
}

describe("the leftover-process check after each suite", function () {
  it("fails the suite that left `sleep 3600` running, with its command line, passes the other, and stops it", async function () {
    const { code, out } = await runMocha([FIXTURE]);
    assert.equal(code, 1, out);
    assert.match(out, /2 passing[\s\S]*1 failing/, out);
    assert.match(out, /"after all" hook: no process left running[\s\S]*"a suite that forgets its child" left 1 process\(es\)/, out);
    assert.doesNotMatch(out, /"a suite that cleans up" left/, out);
    await stoppedLeftover(out);
  });

  it("does the same in mocha's parallel mode, each worker blaming only the suites of the files it ran", async function () {
    this.timeout(60_000);
    const { code, out } = await runMocha(["--parallel", "--jobs", "2", FIXTURE, CLEAN_FIXTURE]);
    assert.equal(code, 1, out);
    assert.match(out, /3 passing[\s\S]*1 failing/, out);
    assert.match(out, /"after all" hook: no process left running[\s\S]*"a suite that forgets its child" left 1 process\(es\)/, out);
    assert.doesNotMatch(out, /"a suite (that cleans up|in another file that cleans up)" left/, out);
    await stoppedLeftover(out);
  });
});
