// `ticket-runner sandbox`: prints the API URL, git URL and a token, serves until SIGTERM, exits 0.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SandboxAdmin } from "../../../src/sandbox/admin-client";
import { startSandbox } from "../../../src/sandbox/start";
import { waitFor } from "../../support/wait-for";
import { FAR_APART_LINES, divergeFarApart, gitOk, octokitFor } from "./support";

const ROOT = path.resolve(__dirname, "../../..");

describe("ticket-runner sandbox (CLI)", function () {
  it("prints the URLs and token, answers requests, and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--require", "tsx/cjs", path.join(ROOT, "src/cli/main.ts"), "sandbox", "--port", "0", "--seed", "demo", "--json"], {
      cwd: ROOT,
      env: { ...process.env, TICKET_RUNNER_STAGE: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      const line = await waitFor(() => out.split("\n").find((l) => l.startsWith("{")), { what: `the JSON line (stderr: ${err})`, timeoutMs: 30_000 });
      const info = JSON.parse(line) as { apiUrl: string; gitUrl: string; token: string };
      assert.match(info.apiUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(info.gitUrl, `${info.apiUrl}/demo/shop.git`);
      assert.match(info.token, /^trsb_/);
      const me = await octokitFor(info.apiUrl, info.token).users.getAuthenticated();
      assert.equal(me.data.login, "sandbox-admin");
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("stopped as the demo stops it (SIGTERM to its process group) mid mergeability check, it saves no conflict for a clean pull request (ADR 0472)", async () => {
    // The demo-headless flake: the next demo stopped the killed demo's sandbox while a GET of #2's
    // pull request had a merge-tree in flight; the killed git was read as "conflicts", saved, and
    // the resumed Run handed a clean pull request off as conflicting with main.
    const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-cli-stop-"));
    const data = path.join(tmp, "data");
    const child = spawn(process.execPath, ["--require", "tsx/cjs", path.join(ROOT, "src/cli/main.ts"), "sandbox", "--port", "0", "--data", data, "--json"], {
      cwd: ROOT,
      env: { ...process.env, TICKET_RUNNER_STAGE: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const killGroup = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        // already gone
      }
    };
    let number = 0;
    let token = "";
    try {
      const line = await waitFor(() => out.split("\n").find((l) => l.startsWith("{")), { what: `the JSON line (stderr: ${err})`, timeoutMs: 30_000 });
      const info = JSON.parse(line) as { apiUrl: string; token: string };
      const admin = new SandboxAdmin(info.apiUrl, info.token);
      // A CI run still going when the stop comes, as #2's was: it keeps the stopping sandbox alive
      // long enough to see its killed merge-tree end.
      await admin.createRepo({ owner: "acme", name: "kept", files: { "f.txt": FAR_APART_LINES }, ciCommand: ["sleep", "60"] });
      token = (await admin.addUser({ login: "bob", repos: { "acme/kept": "write" } })).token;
      const url = new URL(`${info.apiUrl}/acme/kept.git`);
      url.username = "x-access-token";
      url.password = token;
      await divergeFarApart(url.toString(), tmp);
      const bob = octokitFor(info.apiUrl, token);
      number = (await bob.pulls.create({ owner: "acme", repo: "kept", head: "topic", base: "main", title: "topic" })).data.number;
      // Real git held mid-merge: a merge driver (the bare repository's own config) that notes it started, then waits.
      const bare = path.join(data, "repos", "acme", "kept.git");
      const marker = path.join(tmp, "merge-tree-started");
      await fsp.mkdir(path.join(bare, "info"), { recursive: true });
      await fsp.writeFile(path.join(bare, "info", "attributes"), "f.txt merge=held\n");
      await gitOk(["--git-dir", bare, "config", "merge.held.driver", `echo started >> '${marker}'; sleep 60`], tmp);
      assert.equal((await bob.pulls.get({ owner: "acme", repo: "kept", pull_number: number })).data.mergeable, null);
      await waitFor(() => fsp.readFile(marker, "utf8"), { what: "the merge-tree started by the read", timeoutMs: 30_000 });
      killGroup("SIGTERM");
      assert.equal(await exited, 0, err);
      await gitOk(["--git-dir", bare, "config", "--unset", "merge.held.driver"], tmp);
      await fsp.rm(path.join(bare, "info", "attributes"));
    } finally {
      killGroup("SIGKILL");
    }
    const again = await startSandbox({ dataDir: data, quiet: true });
    try {
      const bob = octokitFor(again.apiUrl, token);
      const mergeable = await waitFor(async () => {
        const got = (await bob.pulls.get({ owner: "acme", repo: "kept", pull_number: number })).data;
        return got.mergeable === null ? null : { value: got.mergeable, state: got.mergeable_state };
      });
      assert.deepEqual(mergeable, { value: true, state: "clean" });
    } finally {
      await again.stop();
      await fsp.rm(tmp, { recursive: true, force: true });
    }
  });

  it("refuses a bad --port with exit code 2", async () => {
    const child = spawn(process.execPath, ["--require", "tsx/cjs", path.join(ROOT, "src/cli/main.ts"), "sandbox", "--port", "http"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    assert.equal(code, 2);
    assert.match(err, /--port must be a number/);
  });
});
