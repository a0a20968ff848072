/**
 * A sandbox killed mid-push leaves no git process behind (ADR 0190). git 2.39's http-backend spins
 * a core forever when its request body ends early, so the sandbox gives git only whole bodies, and
 * ends every git process group on stop. Each case kills the sandbox process (SIGTERM, and SIGKILL,
 * which runs no handler at all) and reads the process table. Needs `npm run build`.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import { request } from "node:http";
import type { ClientRequest } from "node:http";
import os from "node:os";
import path from "node:path";
import { describeProcesses, processesWithEnv } from "../../support/processes";
import { sandboxProcess } from "../../support/sandbox-process";
import type { SandboxProcess } from "../../support/sandbox-process";
import { waitFor } from "../../support/wait-for";
import { gitIdentityEnv, gitOk } from "./support";

const OWNER = "acme";
const REPO = "pushes";

interface Push {
  body: Buffer;
  before: string;
  after: string;
}

function gitBuffer(args: string[], cwd: string, input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      args,
      { cwd, encoding: "buffer", maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...gitIdentityEnv } },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
    child.stdin?.end(input);
  });
}

function pktLine(text: string): Buffer {
  return Buffer.from((text.length + 4).toString(16).padStart(4, "0") + text);
}

/** A real receive-pack request body: one ref update and the pack git itself builds for it (~1 MB, so half of it is a real "mid-body"). */
async function buildPush(sb: SandboxProcess, token: string, tmp: string): Promise<Push> {
  const url = new URL(sb.gitUrl(OWNER, REPO));
  url.username = "x-access-token";
  url.password = token;
  const dir = path.join(tmp, "clone");
  await gitOk(["clone", "--quiet", url.toString(), dir], tmp);
  const before = await gitOk(["rev-parse", "HEAD"], dir);
  // Random bytes do not compress: the pack stays about as large as the file.
  await fsp.writeFile(path.join(dir, "big.bin"), randomBytes(1 << 20));
  await gitOk(["add", "big.bin"], dir);
  await gitOk(["commit", "--quiet", "-m", "big"], dir);
  const after = await gitOk(["rev-parse", "HEAD"], dir);
  const pack = await gitBuffer(["pack-objects", "--stdout", "--revs", "--quiet"], dir, `${after}\n^${before}\n`);
  const command = pktLine(`${before} ${after} refs/heads/main\0report-status\n`);
  return { body: Buffer.concat([command, Buffer.from("0000"), pack]), before, after };
}

function startPush(sb: SandboxProcess, token: string, push: Push): ClientRequest {
  const req = request(`${sb.apiUrl}/${OWNER}/${REPO}.git/git-receive-pack`, {
    method: "POST",
    headers: {
      "content-type": "application/x-git-receive-pack-request",
      "content-length": String(push.body.length),
      authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
    },
  });
  // The sandbox is killed under it: its errors are the point, not a failure.
  req.on("error", () => undefined);
  req.on("response", (res) => res.resume());
  return req;
}

describe("sandbox killed mid-push (integration)", function () {
  let tmp: string;
  let data: string;
  let sb: SandboxProcess | undefined;
  let token: string;
  let push: Push;
  let gitDir: string;

  beforeEach(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-kill-"));
    data = path.join(tmp, "data");
    sb = await sandboxProcess({ dataDir: data });
    await sb.admin.createRepo({ owner: OWNER, name: REPO, files: { "README.md": "# pushes\n" } });
    token = (await sb.admin.addUser({ login: "bob", repos: { [`${OWNER}/${REPO}`]: "write" } })).token;
    push = await buildPush(sb, token, tmp);
    gitDir = path.join(data, "repos", OWNER, `${REPO}.git`);
  });

  afterEach(async () => {
    await sb?.stop();
    sb = undefined;
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  /** The sandbox's git processes: each carries the sandbox's repos folder in its environment. */
  const sandboxGit = () => processesWithEnv(`GIT_PROJECT_ROOT=${path.join(data, "repos")}`);

  async function nothingLeft(what: string): Promise<void> {
    await waitFor(() => sandboxGit().length === 0, { timeoutMs: 15_000, what }).catch(() => {
      throw new Error(`${what}; still running:\n${describeProcesses(sandboxGit())}`);
    });
  }

  /** Half the body sent, and read by the sandbox into its spool: the push is in flight. */
  async function halfPushed(): Promise<ClientRequest> {
    const req = startPush(sb!, token, push);
    req.write(push.body.subarray(0, push.body.length >> 1));
    const spool = path.join(data, "spool");
    await waitFor(async () => (await fsp.readdir(spool)).length > 0, { what: "the sandbox to start reading the push" });
    return req;
  }

  /**
   * The repository's own `pre-receive` hook, holding receive-pack until `release` exists: git at
   * work, caught in the act. The sandbox's pre-receive runs it after its own checks
   * (src/sandbox/push-rules.ts; a push with neither gets no hook at all, ADR 0474).
   */
  async function holdReceivePack(): Promise<{ started: string; release: string }> {
    const started = path.join(tmp, "hook-started");
    const release = path.join(tmp, "hook-release");
    const hook = path.join(gitDir, "hooks", "pre-receive");
    await fsp.mkdir(path.dirname(hook), { recursive: true });
    await fsp.writeFile(hook, `#!/bin/sh\n: > '${started}'\nwhile [ ! -e '${release}' ]; do sleep 0.05; done\n`, { mode: 0o755 });
    const req = startPush(sb!, token, push);
    req.end(push.body);
    await waitFor(() => fsp.access(started).then(() => true), { timeoutMs: 20_000, what: "receive-pack to run the pre-receive hook" });
    return { started, release };
  }

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`${signal} mid-body: no git process was started or is left, and the branch did not move`, async () => {
      const req = await halfPushed();
      process.kill(sb!.pid, signal);
      assert.equal(await sb!.exited, signal === "SIGTERM" ? null : signal);
      req.destroy();
      await nothingLeft(`the sandbox's git processes to be gone after its ${signal}`);
      assert.equal(await gitOk(["--git-dir", gitDir, "rev-parse", "refs/heads/main"], tmp), push.before);
    });
  }

  it("SIGTERM while receive-pack runs: stop() ends its whole process group, hook included", async () => {
    await holdReceivePack();
    assert.ok(
      sandboxGit().some((p) => /receive-pack/.test(p.command)),
      "receive-pack is at work when the sandbox is stopped",
    );
    process.kill(sb!.pid, "SIGTERM");
    assert.equal(await sb!.exited, null);
    // Nothing released the hook: only the sandbox's stop can have ended it.
    await nothingLeft("the push's git processes to be gone once the sandbox has stopped");
  });

  it("SIGKILL while receive-pack runs: the orphaned push reads its whole body, finishes and exits", async () => {
    const { release } = await holdReceivePack();
    process.kill(sb!.pid, "SIGKILL");
    assert.equal(await sb!.exited, "SIGKILL");
    await fsp.writeFile(release, "");
    await nothingLeft("the orphaned push to finish once its hook returns");
    // It had the whole body, so the push it was making is made.
    assert.equal(await gitOk(["--git-dir", gitDir, "rev-parse", "refs/heads/main"], tmp), push.after);
  });
});
