/**
 * Secrets, the OS's side (ADR 0290). Code the agent writes runs as the Run's user: without an OS
 * boundary it reads `/proc/<pid>/environ` of the Run (where the token variable is) and of the Run's
 * git, writes the clone's git control files, and leaves a process running to race the Run's next git
 * call. Here that code (test/reliability/support/proc-snoop.ts) runs as a Check and as an agent,
 * with a process standing for the Run (the token in its environment): in the bubblewrap
 * sandbox it must find the token 0 times, write nothing, and leave nothing running. The same code
 * with isolation "none" (the code before ADR 0290) finds it: the control, so the search cannot pass
 * by looking nowhere.
 */
import { strict as assert } from "node:assert";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClaudeCodeRunner } from "../../../src/adapters/agent/claude-code-runner";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { Sandbox, type IsolationMode } from "../../../src/adapters/isolation/sandbox";
import type { Lane } from "../../../src/ports/workspace";
import { git, makeRemote, type RemoteFixture } from "../../support/git-fixtures";
import { waitFor } from "../../support/wait-for";
import { workspaceOn } from "../../integration/workspace/support/workspace-fixture";
import { record } from "../support/figures";
import { SNOOP_MARK, SNOOP_SOURCE, snoopsLeft, type SnoopResult } from "../support/proc-snoop";

const TEST = "test/reliability/quick/proc-isolation.test.ts";
const TOKEN = "c0ffee5eed0123456789abcdef0123456789abcd";

/** The snoop's leftovers when nothing ended them (isolation "none"): this test started them, it ends them. */
function killLeftSnoops(): void {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").includes(SNOOP_MARK)) process.kill(Number(name), "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

describe("reliability: code the agent writes cannot read the Run's token from /proc (ADR 0290)", function () {
  this.timeout(120_000);
  let fx: RemoteFixture;
  let run: ChildProcess;

  before(async () => {
    fx = await makeRemote();
    // The Run, as the snoop would find it: the token in its environment.
    run = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { env: { ...process.env, TICKET_RUNNER_TOKEN: TOKEN }, stdio: "ignore" });
  });
  after(async () => {
    killLeftSnoops();
    run?.kill("SIGKILL");
    await fx?.cleanup();
  });

  async function laneWith(mode: IsolationMode, name: string): Promise<{ ws: GitWorkspace; lane: Lane; commonDir: string; sandbox: Sandbox }> {
    const sandbox = new Sandbox({ mode });
    const root = await fx.clone(name);
    const ws = workspaceOn(root, { sandbox });
    await ws.preflight("main");
    await ws.fetchBase("main");
    const lane = await ws.cutLane(1, ws.branchFor(1, "snoop"), "main");
    return { ws, lane, commonDir: join(root, ".git"), sandbox };
  }

  const snoopArgv = (out: string, commonDir: string, lane: Lane): string[] => [
    process.execPath,
    "-e",
    SNOOP_SOURCE,
    out,
    Buffer.from(TOKEN).toString("base64"),
    commonDir,
    lane.path,
  ];

  for (const mode of ["sandbox", "none"] as const) {
    it(`a Check that reads /proc, unmounts it, writes .git and leaves a process: isolation "${mode}"`, async () => {
      const { ws, lane, commonDir } = await laneWith(mode, `check-${mode}`);
      const configBefore = readFileSync(join(commonDir, "config"), "utf8");
      // In the clone's git dir: the sandbox's /tmp is its own (ADR 0341).
      const out = join(commonDir, `snoop-check-${mode}.json`);
      const result = await ws.runCheck(lane, snoopArgv(out, commonDir, lane), 60_000);
      assert.equal(result.exitCode, 0, result.output);
      const found = JSON.parse(readFileSync(out, "utf8")) as SnoopResult;
      if (mode === "none") {
        // The code before ADR 0290: the token is read from the Run's environ; .git is written.
        assert.ok(found.hits > 0, JSON.stringify(found));
        assert.ok(found.writes.length > 0, JSON.stringify(found));
        assert.ok((await snoopsLeft()) > 0, "the left-behind process outlived the Check");
        killLeftSnoops();
        return;
      }
      assert.equal(found.hits, 0, JSON.stringify(found));
      assert.deepEqual(found.writes, [], "nothing in the sandbox writes the clone's git control files");
      assert.equal(found.umounts.length, 3, JSON.stringify(found));
      assert.ok(
        found.umounts.every((u) => !u.endsWith("exit 0")),
        `every unmount refused: ${found.umounts.join("; ")}`,
      );
      assert.ok(found.pids <= 8, `the Check sees only its own processes (${found.pids} pids over two scans)`);
      assert.equal(readFileSync(join(commonDir, "config"), "utf8"), configBefore);
      assert.equal(found.left, 1, "the snoop started a process to leave behind");
      await waitFor(async () => (await snoopsLeft()) === 0 || null, { timeoutMs: 10_000, what: "the Check's left-behind process to be gone" });
      record("secrets.proc-check", {
        what: "a Check reading /proc/*/environ and cmdline of every process it sees (and after unmounting /proc) finds the Run's token; it writes .git and leaves a process",
        test: TEST,
        inputs: found.places,
        losses: found.hits + found.writes.length,
      });
    });
  }

  it("an agent's command that reads /proc finds the token 0 times in the sandbox", async () => {
    const { lane, commonDir, sandbox } = await laneWith("sandbox", "agent");
    const dir = mkdtempSync(join(tmpdir(), "tr-snoop-agent-"));
    try {
      const out = join(commonDir, "found-agent.json");
      const script = join(dir, "agent.js");
      // A claude-compatible agent whose tool run is the snoop.
      writeFileSync(
        script,
        `
const { spawnSync } = require("node:child_process");
spawnSync(process.execPath, ["-e", ${JSON.stringify(SNOOP_SOURCE)}, ${JSON.stringify(out)}, ${JSON.stringify(Buffer.from(TOKEN).toString("base64"))}, ${JSON.stringify(commonDir)}, ${JSON.stringify(lane.path)}], { stdio: "ignore" });
process.stdout.write('{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"."}\\n');
process.stdout.write('{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done"}\\n');
`,
      );
      const runner = new ClaudeCodeRunner({ command: [process.execPath, script], baseEnv: process.env, sandbox, killGraceMs: 500 });
      const res = await runner.run({
        stage: "implement",
        ticket: 1,
        prompt: "snoop",
        cwd: lane.path,
        logDir: dir,
        logName: "implement",
        timeoutMs: 60_000,
        maxTurns: 5,
      });
      assert.equal(res.outcome, "success", JSON.stringify(res));
      const found = JSON.parse(readFileSync(out, "utf8")) as SnoopResult;
      assert.equal(found.hits, 0, JSON.stringify(found));
      assert.deepEqual(found.writes, []);
      await waitFor(async () => (await snoopsLeft()) === 0 || null, { timeoutMs: 10_000, what: "the agent's left-behind process to be gone" });
      record("secrets.proc-agent", {
        what: "an agent's command reading /proc of every process it sees finds the Run's token",
        test: TEST,
        inputs: found.places,
        losses: found.hits,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a Check that times out in the sandbox: it and what it left in a session of its own are gone", async () => {
    const { ws, lane } = await laneWith("sandbox", "timeout");
    const hang = `require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", ["tr-snoop", "left-behind"].join("-")], { detached: true, stdio: "ignore" }).unref(); setInterval(() => {}, 1000);`;
    const result = await ws.runCheck(lane, [process.execPath, "-e", hang, SNOOP_MARK], 1500);
    assert.equal(result.timedOut, true, result.output);
    await waitFor(async () => (await snoopsLeft()) === 0 || null, { timeoutMs: 10_000, what: "every process of the timed-out Check to be gone" });
  });

  it("the clone's config is unchanged and git still commits in the lane from inside the sandbox", async () => {
    const { lane, sandbox } = await laneWith("sandbox", "commit");
    writeFileSync(join(lane.path, "x.txt"), "x\n");
    const argv = sandbox.wrap(["/usr/bin/git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "x", "--allow-empty"], lane.path);
    await git(lane.path, ["add", "x.txt"]);
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: lane.path, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
  });
});
