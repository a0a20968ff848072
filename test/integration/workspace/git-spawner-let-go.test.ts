/**
 * A command that lets the git spawner go at its end (letGoOfSpawner, as `ticket-runner run`
 * does) still ends with its own exit code: the wait for the spawner's exit keeps the process alive.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
const GIT_PROCESS = path.join(ROOT, "src/adapters/git/git-process.ts");
const SPAWNER = path.join(ROOT, "src/adapters/spawner/spawner.ts");

const SCRIPT = `
  const { runGitProcess } = require(${JSON.stringify(GIT_PROCESS)});
  const { letGoOfSpawner } = require(${JSON.stringify(SPAWNER)});
  (async () => {
    const r = await runGitProcess(["--version"], { cwd: process.cwd(), env: process.env, idleMs: 30000 });
    await letGoOfSpawner();
    console.log("let go after git exited " + r.code);
    process.exitCode = 3;
  })();`;

describe("workspace: letting the git spawner go at a command's end", function () {
  it("waits for the spawner, then the command ends with its own exit code", async function () {
    this.timeout(60_000);
    const child = spawn(process.execPath, ["--require", "tsx/cjs", "-e", SCRIPT], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.match(out, /let go after git exited 0/);
    assert.equal(code, 3, `the command's own exit code, not 0 from an emptied event loop\n${out}`);
  });
});
