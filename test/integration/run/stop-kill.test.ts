import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../../support/wait-for";
import { RunWorld } from "./run-helpers";

const say = (r: { out: string[]; err: string[] }) => `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;

/** Waits until a Stage's log of a ticket exists in a clone: the Stage has started. */
async function stageStarted(w: RunWorld, clone: string, ticket: number, stage: string): Promise<void> {
  await waitFor(() => Object.values(w.stageLogs(clone, ticket)).some((stages) => stages.includes(stage)), {
    timeoutMs: 60_000,
    what: `#${ticket} ${stage} to start`,
  });
}

describe("run (integration): stop and kill", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("stop during a busy Lane: it finishes, nothing new is taken; a second stop says the same", async () => {
    w = await RunWorld.make();
    const [a, b] = await w.tickets([w.ticket("slowpoke", ["slow:3000"]), w.ticket("later")]);
    const run = w.cli(["run"]);
    await stageStarted(w, w.target.clone, a!, "implement");

    const stop = await w.cliDone(["stop"]);
    assert.equal(stop.code, 0, say(stop));
    assert.match(
      stop.out[0]!,
      /^`ticket-runner run` \(run \d{4}-\d\d-\d\dT[\d-]+, pid \d+\) will stop once the Tickets it holds are finished\. It claims no more\.$/,
    );
    assert.match(stop.out[1]!, /^Ctrl\+C in that Run's own terminal stops it at once instead/);
    const again = await w.cliDone(["stop"]);
    assert.equal(again.code, 0, "a second SIGTERM is ignored by the Run, and stop says the same thing");
    assert.deepEqual(again.out, stop.out);

    const code = await run.exited;
    assert.equal(code, 0, say(run));
    assert.match(run.out.at(-1)!, new RegExp(`^Stopped at \\d\\d:\\d\\d · finishing #${a}\\.$`));
    assert.match(run.err.join("\n"), new RegExp(`#${a} left to finish · stopped`));
    assert.equal((await w.issue(a!)).state, "closed", "the busy Lane finished to a merge");
    assert.deepEqual((await w.issue(b!)).labelNames, ["ready-for-agent"], "nothing new was taken");
    assert.deepEqual(await w.lock(), { held: false });

    const none = await w.cliDone(["stop"]);
    assert.equal(none.code, 2);
    assert.match(none.err.join("\n"), /^No Run to stop: .*A dead lock is left for the next Run to take over\.$/m);
  });

  it("SIGKILL during implement leaves the Claim and the lock; the next Run on this Host resumes it", async () => {
    w = await RunWorld.make();
    const [n] = await w.tickets([w.ticket("phoenix", ["slow:4000"])]);
    const run = w.cli(["run"]);
    await stageStarted(w, w.target.clone, n!, "implement");
    run.child.kill("SIGKILL");
    await run.exited;
    await w.noProcessesIn(join(w.target.clone, ".worktrees"));

    const issue = await w.issue(n!);
    assert.ok(issue.labelNames.includes("in-progress"), "the Claim simply stays");
    assert.deepEqual(issue.assigneeLogins, ["ana"]);
    assert.equal((await w.stateOf(n!))!.state, "claimed");
    assert.equal((await w.lock()).held, true, "the lock stays for the next Run to take over");
    assert.equal((await w.pulls()).length, 0);

    const again = await w.cliDone(["run"]);
    assert.equal(again.code, 0, say(again));
    assert.match(again.out.join("\n"), new RegExp(`lane 1: #${n} .*\\(resumed\\)`));
    assert.match(again.err.join("\n"), /took the Run lock over from run/);
    assert.equal((await w.issue(n!)).state, "closed");
    assert.deepEqual(Object.values(w.stageLogs(w.target.clone, n!)), [["implement"], ["implement", "verify"]]);
    assert.deepEqual(await w.lock(), { held: false });
  });

  it("SIGKILL after implement, then a second clone on another Host resumes it at the Checks", async () => {
    w = await RunWorld.make();
    const [n] = await w.tickets([w.ticket("nomad", ["slow:2500"])]);
    const run = w.cli(["run"]);
    await stageStarted(w, w.target.clone, n!, "verify");
    run.child.kill("SIGKILL");
    await run.exited;
    await w.noProcessesIn(join(w.target.clone, ".worktrees"));
    assert.equal((await w.stateOf(n!))!.state, "implemented");

    const cloneB = await w.cloneAgain("host-b");
    const hostB = w.hostEnv("b", { TICKET_RUNNER_HOST_SESSION: "vm-b" });
    const refused = await w.cliDone(["run"], { cwd: cloneB, host: hostB });
    assert.equal(refused.code, 2, say(refused));
    assert.match(refused.err.join("\n"), /never presumed dead/, `a lock from another Host is never presumed dead: ${say(refused)}`);

    const unlock = await w.cliDone(["unlock", "--yes"], { cwd: cloneB, host: hostB });
    assert.equal(unlock.code, 0, say(unlock));
    const resumed = await w.cliDone(["run"], { cwd: cloneB, host: hostB });
    assert.equal(resumed.code, 0, say(resumed));
    assert.equal((await w.issue(n!)).state, "closed", say(resumed));
    assert.deepEqual(w.agentCalls(cloneB, n!), ["verify"], "the implement Stage is not paid for twice, even on another Host");
    assert.ok(!existsSync(join(cloneB, ".worktrees", `ticket-${n}`)), "the merge removed the worktree");
  });

  it("two Lanes run two tickets at once, and each merges once", async () => {
    w = await RunWorld.make({ lanes: 2 });
    const [a, b] = await w.tickets([w.ticket("left", ["slow:1500"]), w.ticket("right", ["slow:1500"])]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 0, say(r));
    const lines = r.out;
    const firstEnd = lines.findIndex((l) => / merged: /.test(l));
    assert.ok(
      lines.findIndex((l) => l.includes(`lane 1: #${a}`)) < firstEnd && lines.findIndex((l) => l.includes(`lane 2: #${b}`)) < firstEnd,
      "both Lanes were busy before either ticket ended",
    );
    const ended = (stages: RegExp) =>
      lines
        .map((l) => /^\[[\d:]+\] #(\d+) ([a-z]+):/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null && stages.test(m[2]!))
        .map((m) => Number(m[1]));
    // The order itself is the merge train's (unit tests); here: each merged once, one after the other.
    assert.deepEqual(
      ended(/^merge$/).sort((x, y) => x - y),
      [a!, b!].sort((x, y) => x - y),
    );
    assert.equal((await w.issue(a!)).state, "closed");
    assert.equal((await w.issue(b!)).state, "closed");
  });
});
