/**
 * With `labels.hostLabels` on, a Run on a new Host that adopts a Stranded claim from another Host
 * (lockScope "target": holding the lock proves the old Run is gone) takes off the old Host's
 * `claim:<host>` label in its claim write; it used to stay on the issue after the ticket was done.
 * Real `ticket-runner run` processes, a real SIGKILL, two clones playing two Hosts.
 */
import { strict as assert } from "node:assert";
import { waitFor } from "../../support/wait-for";
import { RunWorld } from "../run/run-helpers";

const say = (r: { out: string[]; err: string[] }) => `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;

describe("claims (integration): adopting a Stranded claim from another Host takes off that Host's label", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("Run on Host a killed mid-ticket, Host b's Run adopts and finishes it: no claim:a (nor any claim:<host>) is left", async () => {
    w = await RunWorld.make({ labels: { hostLabels: true } });
    const [n] = await w.tickets([w.ticket("wanderer", ["slow:2500"])]);
    const run = w.cli(["run"]);
    await waitFor(() => Object.values(w.stageLogs(w.target.clone, n!)).some((stages) => stages.includes("verify")), {
      timeoutMs: 60_000,
      what: `#${n} verify to start`,
    });
    run.child.kill("SIGKILL");
    await run.exited;
    assert.deepEqual((await w.issue(n!)).labelNames, ["claim:a", "in-progress"], "the killed Run's claim is on the board");

    const cloneB = await w.cloneAgain("host-b");
    const hostB = w.hostEnv("b", { TICKET_RUNNER_HOST_SESSION: "vm-b" });
    const unlock = await w.cliDone(["unlock", "--yes"], { cwd: cloneB, host: hostB });
    assert.equal(unlock.code, 0, say(unlock));
    const adopted = await w.cliDone(["run"], { cwd: cloneB, host: hostB });
    assert.equal(adopted.code, 0, say(adopted));
    const issue = await w.issue(n!);
    assert.equal(issue.state, "closed", say(adopted));
    assert.deepEqual(
      issue.labelNames.filter((l) => l.startsWith("claim:") || l === "in-progress"),
      [],
      say(adopted),
    );
  });
});
