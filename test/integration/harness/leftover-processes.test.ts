/**
 * The leftover-process check every mocha run loads (test/support/leftover-processes.ts) fails the
 * suite that left a process running, names its command line, blames no other suite, and stops it.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import path from "node:path";
import { processTable } from "../../support/processes";
import { waitFor } from "../../support/wait-for";

const ROOT = path.resolve(__dirname, "../../..");
const FIXTURE = path.join(ROOT, "test/fixtures/leftover/leaves-a-process.ts");

function runMocha(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "node_modules/mocha/bin/mocha.js"), "--reporter", "spec", FIXTURE], {
      cwd: ROOT,
      env: { ...process.env, TICKET_RUNNER_LEFTOVER_SETTLE_MS: "500" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
    child.stderr.on("data", (b: Buffer) => (out += b.toString("utf8")));
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe("the leftover-process check after each suite", function () {
  it("fails the suite that left `sleep 3600` running, with its command line, passes the other, and stops it", async function () {
    const { code, out } = await runMocha();
    assert.equal(code, 1, out);
    assert.match(out, /2 passing[\s\S]*1 failing/, out);
    assert.match(out, /"after all" hook: no process left running[\s\S]*"a suite that forgets its child" left 1 process\(es\)/, out);
    const pid = Number(/pid (\d+) \(parent \d+, group \d+\): sleep 3600/.exec(out)?.[1]);
    assert.ok(pid > 0, out);
    assert.doesNotMatch(out, /"a suite that cleans up" left/, out);
    // The check stopped it (SIGKILL is immediate; init reaps the orphan).
    await waitFor(() => !processTable().some((p) => p.pid === pid && p.command === "sleep 3600" && p.state !== "Z"), { what: `the leftover sleep (pid ${pid}) to be stopped` });
  });
});
