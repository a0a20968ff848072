import { strict as assert } from "node:assert";
import { NodeHost } from "../../../src/adapters/node-host";
import { main } from "../../../src/cli/main";
import type { CliIo } from "../../../src/cli/command";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV, otherWorkstation, workspaceOn } from "./support/workspace-fixture";

function capture(cwd: string): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), cwd, env: { ...process.env, ...ISOLATED_GIT_ENV, TICKET_RUNNER_STAGE: "" } };
}

describe("workspace: ticket-runner unlock", () => {
  let fx: RemoteFixture;
  beforeEach(async () => {
    fx = await makeRemote();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("frees a lock another Host left only with --yes, and says whose it was", async () => {
    const other = await otherWorkstation(fx.root, "99999999999999999999999999999999", "vm");
    const there = workspaceOn(await fx.clone("vm"), { host: other });
    await there.acquireLock({
      host: other.identity(),
      pid: 4_000_000,
      command: "ticket-runner run",
      runId: "run-vm",
      startedAt: new Date().toISOString(),
      processStartTime: null,
    });
    const here = await fx.clone("here");

    const refused = capture(here);
    assert.equal(await main(["unlock"], refused), 2);
    assert.match(refused.errors.join("\n"), /held by run run-vm on `vm`.*another Host/);
    assert.match(refused.errors.join("\n"), /ticket-runner unlock --yes/);

    const done = capture(here);
    assert.equal(await main(["unlock", "--yes"], done), 0);
    assert.match(done.lines[0]!, /^Freed the Run lock \(it was held by run run-vm/);
    assert.deepEqual(await there.readLock(), { held: false });
    assert.match(
      await git(fx.remote, ["log", "-1", "--format=%B", "ticket-runner/lock"]),
      /^Free\n\nFreed by hand \(held by run run-vm\): ticket-runner unlock on/,
    );

    const again = capture(here);
    assert.equal(await main(["unlock"], again), 0);
    assert.deepEqual(again.lines, ["The Run lock is already free."]);
  });

  it("never unlocks a Run still alive on this Host", async () => {
    const host = new NodeHost();
    const ws = workspaceOn(await fx.clone("target"), { host });
    await ws.acquireLock({
      host: host.identity(),
      pid: process.pid,
      command: "ticket-runner run",
      runId: "run-live",
      startedAt: new Date().toISOString(),
      processStartTime: await host.processStartTime(process.pid),
    });
    const io = capture(ws.root);
    assert.equal(await main(["unlock", "--yes"], io), 2);
    assert.match(io.errors[0]!, /still running on this Host\. Stop it with `ticket-runner stop`/);
    assert.equal((await ws.readLock()).held, true);
  });

  it("replaces an unreadable lock.json only with --yes", async () => {
    const person = await fx.clone("person");
    await git(person, ["checkout", "-q", "--orphan", "ticket-runner/lock"]);
    await git(person, ["rm", "-rq", "--cached", "."]);
    await commitFiles(person, { "lock.json": "garbage" }, "broken");
    await git(person, ["push", "-q", "origin", "ticket-runner/lock"]);
    const here = await fx.clone("here");
    const io = capture(here);
    assert.equal(await main(["unlock"], io), 2);
    assert.match(io.errors[0]!, /cannot be read: not JSON/);
    assert.equal(await main(["unlock", "--yes"], capture(here)), 0);
    assert.equal(await git(fx.remote, ["show", "ticket-runner/lock:lock.json"]), '{\n  "held": false\n}');
  });
});
