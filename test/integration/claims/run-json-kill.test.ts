import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import type { RunJson } from "../../../src/core/schemas/run-json";
import { prng } from "../../support/prng";
import { runJsonFixture } from "../../support/run-json";

const SCRIPT = join(__dirname, "support", "create-runs.ts");
const REPO = { owner: "acme", repo: "widgets" };
const ROUNDS = 8;

/** Starts a process creating run.json files in a loop; resolves once its first one is in place. */
function startCreator(root: string): Promise<{ kill(): Promise<void> }> {
  const proc = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), SCRIPT, root], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const gone = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    proc.stdout.once("data", () => resolve({ kill: async () => void (proc.kill("SIGKILL"), await gone) }));
    void gone.then(() => reject(new Error(`the creator exited before its first run.json: ${stderr.slice(-2000)}`)));
  });
}

function record(issue: number): RunJson {
  return runJsonFixture({ issue, session: `next-${issue}`, pid: process.pid, startedAt: new Date().toISOString(), holder: "machine" });
}

describe("claims: run.json and a SIGKILL in the middle of its create", () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), "tr-runjson-kill-"))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it(`of ${ROUNDS} processes killed at random moments while creating run.json files, none leaves one that blocks its ticket`, async () => {
    const random = prng(20261130);
    let dirs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const base = join(root, `round-${round}`);
      const creator = await startCreator(base);
      // A random while, so the kill lands anywhere in a create.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 40)));
      await creator.kill();

      const runRoot = new FsRunRoot(base);
      const bad = (await runRoot.list(REPO)).flatMap((l) => (l.read.kind === "invalid" ? [`${l.dir}: ${l.read.reason}`] : []));
      assert.deepEqual(bad, [], "a killed create left a run.json that blocks its ticket");
      // A create cut short leaves no run.json at all, so the next Run can take the ticket.
      for (const name of readdirSync(join(base, "acme__widgets"))) {
        dirs++;
        const dir = join(base, "acme__widgets", name);
        if ((await runRoot.read(dir)).kind === "none") assert.equal((await runRoot.create(dir, record(Number(name.slice("issue-".length))))).kind, "created");
      }
    }
    assert.ok(dirs >= ROUNDS, `the creators made ${dirs} run directories`);
  });
});
