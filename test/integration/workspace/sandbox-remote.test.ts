/**
 * The same Workspace against the sandbox's smart-HTTP remote (real `git http-backend` behind the
 * sandbox's auth), as a Run on a real GitHub Target would use it: token in env, never on argv.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { NodeHost } from "../../../src/adapters/node-host";
import { Failure } from "../../../src/core/errors";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { commitFiles, git, makeTempDir, TEST_IDENTITY } from "../../support/git-fixtures";
import { otherWorkstation, ISOLATED_GIT_ENV, stateFor } from "./support/workspace-fixture";

function basicAuthEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

describe("workspace: through the sandbox's smart-HTTP remote", function () {
  this.timeout(60_000);
  let sandbox: SandboxHandle;
  let dir: string;
  let writer: string;
  let reader: string;
  let url: string;

  before(async () => {
    sandbox = await startSandbox({ quiet: true, seed: "none" });
    await sandbox.admin.createRepo({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n", "src/w.txt": "w\n" } });
    writer = (await sandbox.admin.addUser({ login: "runner", repos: { "acme/widgets": "write" } })).token;
    reader = (await sandbox.admin.addUser({ login: "onlooker", repos: { "acme/widgets": "read" } })).token;
    url = sandbox.gitUrl("acme", "widgets");
    dir = await makeTempDir("tr-ws-http-");
  });
  after(async () => {
    await sandbox?.stop();
    const { rm } = await import("node:fs/promises");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function cloneAs(name: string, token: string, host = new NodeHost()): Promise<GitWorkspace> {
    const root = join(dir, name);
    await git(dir, ["clone", "-q", url, root], basicAuthEnv(token));
    return new GitWorkspace({ root, host, token, env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY });
  }

  it("cuts, pushes and resumes a lane on another Host; State and lock work over HTTP", async () => {
    const a = await cloneAs("host-a", writer);
    const other = await otherWorkstation(dir, "abababababababababababababababab", "vm");
    const b = await cloneAs("host-b", writer, other);

    assert.equal(await a.fetchBase("main"), "remote");
    const lane = await a.cutLane(1, a.branchFor(1, "Über-fast widgets!"), "main");
    assert.equal(lane.branch, "agent/1-uber-fast-widgets");
    const sha = await commitFiles(lane.path, { "src/w.txt": "faster\n" }, "implement #1");
    assert.deepEqual(await a.push(lane), { ok: true, detail: `Pushed \`${lane.branch}\` at ${sha.slice(0, 12)}.` });
    assert.equal(await b.remoteBranchSha(lane.branch), sha);
    const resumed = await b.resumeLane(1, lane.branch, "main");
    assert.equal(resumed.outcome, "made");
    assert.equal(await b.headSha(resumed.lane!), sha);

    await Promise.all([a.writeState(1, () => stateFor(1, { branch: lane.branch })), b.writeState(2, () => stateFor(2))]);
    assert.deepEqual(
      (await a.readStates()).files.map((f) => f.ticket),
      [1, 2],
    );

    const holder = { pid: process.pid, command: "ticket-runner run", startedAt: new Date().toISOString(), processStartTime: null };
    assert.ok((await a.acquireLock({ ...holder, host: new NodeHost().identity(), runId: "run-a" })).ok);
    const refused = await b.acquireLock({ ...holder, host: other.identity(), runId: "run-b" });
    assert.equal(!refused.ok && refused.standing, "elsewhere");
    assert.deepEqual(await a.releaseLock("run-a"), { released: true, detail: "Released the lock of run run-a." });
  });

  it("lockScope \"host\": a take fetches once, after its push, the other Hosts' locks with the State records, and the sweep's read fetches nothing (ADR 0495)", async () => {
    await sandbox.admin.createRepo({ owner: "acme", name: "gadgets", files: { "README.md": "gadgets\n" } });
    const gadgets = sandbox.gitUrl("acme", "gadgets");
    const token = (await sandbox.admin.addUser({ login: "gadgeteer", repos: { "acme/gadgets": "write" } })).token;
    const onHost = async (name: string, host: NodeHost) => {
      const root = join(dir, name);
      await git(dir, ["clone", "-q", gadgets, root], basicAuthEnv(token));
      return new GitWorkspace({ root, host, token, env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY, lockScope: "host" });
    };
    const deskHost = await otherWorkstation(dir, "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd", "desk");
    const vmHost = await otherWorkstation(dir, "efefefefefefefefefefefefefefefef", "vm");
    const desk = await onHost("gadgets-desk", deskHost);
    const vm = await onHost("gadgets-vm", vmHost);
    const holder = { pid: process.pid, command: "ticket-runner run", startedAt: new Date().toISOString(), processStartTime: null };
    assert.ok((await desk.acquireLock({ ...holder, host: deskHost.identity(), runId: "run-desk" })).ok);
    await desk.writeState(5, () => stateFor(5));

    const fetches = async () => (await sandbox.admin.requestLog()).filter((r) => r.method === "POST" && r.path === "/acme/gadgets.git/git-upload-pack").length;
    await sandbox.admin.clearRequestLog();
    const took = await vm.acquireLock({ ...holder, host: vmHost.identity(), runId: "run-vm" });
    assert.ok(took.ok);
    assert.deepEqual(
      took.peers?.map((p) => p.runId),
      ["run-desk"],
      "the desk's lock, read after the push, is a peer",
    );
    assert.equal(await fetches(), 1, "one fetch: the desk's lock file and the State record together, after the push");
    const read = await vm.readStates();
    assert.deepEqual(
      read.files.map((f) => f.ticket),
      [5],
    );
    assert.equal(await fetches(), 1, "the sweep's read fetched nothing more");
    await Promise.all([desk.releaseLock("run-desk"), vm.releaseLock("run-vm")]);
  });

  it("a push the remote rejects is reported with git's message, the token removed", async () => {
    // A person's clone with the token written into its remote URL: the worst case for a leak.
    const root = join(dir, "read-only");
    const withToken = url.replace("http://", `http://x-access-token:${reader}@`);
    await git(dir, ["clone", "-q", withToken, root]);
    const ws = new GitWorkspace({ root, host: new NodeHost(), env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY });
    await ws.fetchBase("main");
    const lane = await ws.cutLane(3, "agent/3-read-only", "main");
    await commitFiles(lane.path, { "r.txt": "r\n" }, "cannot push this");

    const res = await ws.push(lane);
    assert.equal(res.ok, false);
    assert.match(res.detail, /403|denied/);
    assert.ok(!res.detail.includes(reader), res.detail);

    const err = await ws
      .writeState(3, () => stateFor(3))
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof Failure, String(err));
    assert.match(err.message, /refused the push to refs\/ticket-runner\/state\/3/);
    assert.ok(!err.message.includes(reader), err.message);
  });
});
