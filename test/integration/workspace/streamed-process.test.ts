/**
 * The agent's Stages and the Checks start through the spawner with their output streamed
 * (ADR 0350): their output arrives whole and in order, a paused reader loses nothing, a missing
 * program is an 'error' with no pid, and when the Run's process is killed (SIGKILL) the spawner ends
 * the process groups it started, where a process forked by the Run itself outlives it. A spawner
 * started ahead is the one the next call uses (ADR 0484).
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import path from "node:path";
import { spawnStreamed } from "../../../src/adapters/spawner/streamed-process";
import type { StreamedProcess } from "../../../src/adapters/spawner/streamed-process";
import { letGoOfSpawner, spawnerCounts, warmSpawner } from "../../../src/adapters/spawner/spawner";
import { waitFor } from "../../support/wait-for";

const ROOT = path.resolve(__dirname, "../../..");
const STREAMED = path.join(ROOT, "src/adapters/spawner/streamed-process.ts");

function ended(p: StreamedProcess): Promise<[number | null, NodeJS.Signals | null]> {
  return new Promise((resolve) => p.once("close", (code, signal) => resolve([code, signal])));
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("workspace: processes streamed through the spawner", function () {
  this.timeout(60_000);

  it("streams stdout and stderr whole and in order, then the exit code, and counts the process as its kind", async () => {
    const before = spawnerCounts().byKind.check.processes;
    const p = spawnStreamed({
      kind: "check",
      command: "sh",
      args: ["-c", "printf one; printf two >&2; printf three; exit 3"],
      cwd: ROOT,
      env: { PATH: process.env.PATH },
      input: null,
    });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    p.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
    let spawned: number | undefined;
    p.once("spawn", () => (spawned = p.pid));
    const [code] = await ended(p);
    assert.equal(out, "onethree");
    assert.equal(err, "two");
    assert.equal(code, 3);
    assert.ok(spawned && spawned > 0, "the pid is known at 'spawn'");
    assert.equal(spawnerCounts().byKind.check.processes, before + 1);
  });

  it("feeds stdin, and a reader that pauses loses nothing of a large output", async () => {
    const bytes = 4 * 1024 * 1024;
    const p = spawnStreamed({
      kind: "agent",
      command: "sh",
      args: ["-c", `cat; head -c ${bytes} /dev/zero`],
      cwd: ROOT,
      env: { PATH: process.env.PATH },
      input: "prompt\n",
    });
    let got = 0;
    let head = "";
    p.stdout.on("data", (d: Buffer) => {
      if (head.length < 7) head += d.subarray(0, 7 - head.length).toString("utf8");
      got += d.length;
      // Pause on every chunk and go on a little later, as the Stage's sliced reader does when it is full.
      p.stdout.pause();
      setTimeout(() => p.stdout.resume(), 1);
    });
    p.stderr.resume();
    const [code] = await ended(p);
    assert.equal(code, 0);
    assert.equal(head, "prompt\n");
    assert.equal(got, bytes + "prompt\n".length);
  });

  it("a spawner started ahead (warmSpawner, at the sandbox's preflight) is the one the next Stage starts through (ADR 0484)", async () => {
    await letGoOfSpawner();
    const before = spawnerCounts().spawners;
    warmSpawner();
    warmSpawner();
    assert.equal(spawnerCounts().spawners, before + 1, "one spawner started, however often it is warmed");
    const p = spawnStreamed({ kind: "agent", command: "sh", args: ["-c", "printf warm"], cwd: ROOT, env: { PATH: process.env.PATH }, input: null });
    let out = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    p.stderr.resume();
    assert.deepEqual(await ended(p), [0, null]);
    assert.equal(out, "warm");
    assert.equal(spawnerCounts().spawners, before + 1, "the Stage started through the warmed spawner, not a new one");
  });

  it("a program that is not there is an 'error' with ENOENT and no pid", async () => {
    const p = spawnStreamed({ kind: "check", command: "tr-no-such-program", args: [], cwd: ROOT, env: { PATH: process.env.PATH }, input: null });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => p.once("error", resolve));
    assert.equal(error.code, "ENOENT");
    assert.equal(p.pid, undefined);
  });

  it("a Run killed with SIGKILL takes the groups its spawner started with it", async () => {
    const script = `
      const { spawnStreamed } = require(${JSON.stringify(STREAMED)});
      const p = spawnStreamed({ kind: "agent", command: "sh", args: ["-c", "sleep 60 & sleep 60"], cwd: process.cwd(), env: { PATH: process.env.PATH }, input: null });
      p.stdout.resume();
      p.stderr.resume();
      p.once("spawn", () => console.log("group " + p.pid));
      setInterval(() => undefined, 1000);`;
    const run = spawn(process.execPath, ["--require", "tsx/cjs", "-e", script], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    run.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
    await waitFor(() => /group \d+/.test(out), { what: "the Run to start its Stage" });
    const pgid = Number(/group (\d+)/.exec(out)![1]);
    assert.ok(groupAlive(pgid));
    run.kill("SIGKILL");
    await new Promise((resolve) => run.once("close", resolve));
    try {
      // Forked by the Run itself (TICKET_RUNNER_GIT_SPAWN=direct, the code before ADR 0350), this group outlives it: nothing writes to the closed pipe.
      await waitFor(() => !groupAlive(pgid), { what: "the Stage's group to be gone" });
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
    }
  });
});
