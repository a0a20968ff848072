/**
 * The sandbox's git process groups (src/sandbox/process-groups.ts) started through the spawner
 * (ADR 0391): a group whose pid is not known yet when stop() signals is signalled once it is, so
 * stop() never waits on a process it could not reach. A real process, started the way the sandbox
 * starts its git services.
 */
import { strict as assert } from "node:assert";
import os from "node:os";
import { spawnStreamed } from "../../../src/adapters/spawner/streamed-process";
import { ProcessGroups } from "../../../src/sandbox/process-groups";

describe("sandbox process groups (integration)", function () {
  this.timeout(20_000);

  it("stop() asked before the pid is known ends the group once it starts", async () => {
    const groups = new ProcessGroups();
    const p = spawnStreamed({ kind: "git", command: "sleep", args: ["60"], cwd: os.tmpdir(), env: { PATH: process.env.PATH }, input: null });
    p.stdout.resume();
    p.stderr.resume();
    groups.add(p);
    assert.equal(p.pid, undefined, "the pid comes after the call");
    const ended = new Promise<NodeJS.Signals | null>((resolve) => p.once("exit", (_code, signal) => resolve(signal)));
    // A grace period longer than the test: only the SIGTERM owed to the group can end it in time.
    await groups.stopAll(60_000);
    assert.equal(await ended, "SIGTERM");
    assert.equal(groups.size, 0);
  });
});
