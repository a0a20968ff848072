import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { NodeHost } from "../../../src/adapters/node-host";
import { waitFor } from "../../support/wait-for";

describe("workspace: the Node Host against real processes", () => {
  it("a process's start time is stable while it lives and null once it is gone (zombies included)", async () => {
    const host = new NodeHost();
    const mine = await host.processStartTime(process.pid);
    assert.ok(mine);
    assert.equal(await host.processStartTime(process.pid), mine);
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const started = await waitFor(() => host.processStartTime(child.pid!), { what: "child's start time" });
    assert.notEqual(started, mine);
    assert.equal(host.signal(child.pid!, "SIGKILL"), true);
    await waitFor(async () => (await host.processStartTime(child.pid!)) === null, { what: "the killed child to read as gone" });
    assert.equal(await host.processStartTime(4_000_000), null);
    assert.equal(host.signal(4_000_000, "SIGTERM"), false);
  });

  it("without procfs (macOS, BSD) it asks ps for the start time", async () => {
    // A procfs root that is a file: reading <pid>/stat fails with ENOTDIR, as on a system without /proc.
    const host = new NodeHost({ procRoot: __filename });
    const mine = await host.processStartTime(process.pid);
    assert.match(mine ?? "", /^ps:\S/);
    assert.equal(await host.processStartTime(process.pid), mine, "stable while the process lives");
    assert.equal(await host.processStartTime(4_000_000), null, "no such process");
  });
});
