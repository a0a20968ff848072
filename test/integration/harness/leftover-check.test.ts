/**
 * The shared leftover-process check (test/support/leftover-check.ts) that mocha's root hooks and
 * the VS Code launchers run (ADR 0191): it reports and kills a process carrying the run's mark even
 * once init adopted it, ignores what was there before and what exits in time, and a launcher that
 * leaks a process exits non-zero naming it.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { LeftoverCheck } from "../../support/leftover-check";
import { processTable } from "../../support/processes";
import { runNodeCaptured } from "../../support/run-captured";
import { waitFor } from "../../support/wait-for";

const ROOT = path.resolve(__dirname, "../../..");
const LEAKY_LAUNCHER = path.join(ROOT, "test/fixtures/leftover/launcher-leaks.ts");
const MARK_NAME = "TICKET_RUNNER_LEFTOVER_CHECK_TEST";

function running(pid: number): boolean {
  return processTable().some((p) => p.pid === pid && p.state !== "Z");
}

/** `sleep 600` whose parent shell has exited: an orphan init adopted, found only by its mark. */
async function orphanSleep(env: NodeJS.ProcessEnv): Promise<number> {
  const sh = spawn("sh", ["-c", "sleep 600 >/dev/null & echo $!"], { env, detached: true, stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  sh.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
  await new Promise((resolve) => sh.once("close", resolve));
  const pid = Number(out.trim());
  assert.ok(pid > 0, `no pid from the shell: ${out}`);
  return pid;
}

describe("the shared leftover-process check", function () {
  const value = randomBytes(6).toString("hex");
  const mark = `${MARK_NAME}=${value}`;

  it("reports an orphaned `sleep 600` carrying the mark with its command line, and kills it", async function () {
    const check = new LeftoverCheck({ mark, settleMs: 500 });
    check.remember();
    const pid = await orphanSleep({ ...process.env, [MARK_NAME]: value });
    const failure = await check.check("the orphan's run");
    assert.ok(failure, "the check found nothing");
    assert.match(
      failure,
      new RegExp(`the orphan's run left 1 process\\(es\\) running after its teardown:\\npid ${pid} \\(parent \\d+, group \\d+\\): sleep 600`),
    );
    await waitFor(() => !running(pid), { what: `the leftover sleep (pid ${pid}) to be killed` });
  });

  it("blames neither a process there before it started nor one that exits before the deadline", async function () {
    const before = spawn("sleep", ["600"], { env: { ...process.env, [MARK_NAME]: value }, stdio: "ignore" });
    const check = new LeftoverCheck({ mark, settleMs: 60_000 });
    check.remember();
    const during = spawn("sleep", ["600"], { stdio: "ignore" });
    try {
      const result = check.check("the tidy run");
      await waitFor(() => during.pid !== undefined && running(during.pid), { what: "the second sleep to start" });
      during.kill("SIGTERM");
      assert.equal(await result, null);
      assert.ok(before.pid !== undefined && running(before.pid), "the earlier process was killed");
    } finally {
      before.kill("SIGKILL");
      during.kill("SIGKILL");
      await Promise.all([before, during].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("close", r)) : null)));
    }
  });

  it("makes a VS Code launcher that leaked a process exit 1, naming and killing it", async function () {
    this.timeout(60_000);
    const { code, out } = await runNodeCaptured(["--require", "tsx/cjs", LEAKY_LAUNCHER], { cwd: ROOT, env: { TICKET_RUNNER_LEFTOVER_SETTLE_MS: "500" } });
    assert.equal(code, 1, out);
    const pid = Number(/leaked (\d+)/.exec(out)?.[1]);
    assert.ok(pid > 0, out);
    assert.match(out, new RegExp(`leaky-launcher left 1 process\\(es\\) running after its teardown:\\npid ${pid} .*: sleep 3600`), out);
    assert.match(out, /leaky-launcher: FAILED/, out);
    await waitFor(() => !running(pid), { what: `the leaked sleep (pid ${pid}) to be killed` });
  });
});
