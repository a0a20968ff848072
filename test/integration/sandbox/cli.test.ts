// `ticket-runner sandbox`: prints the API URL, git URL and a token, serves until SIGTERM, exits 0.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import path from "node:path";
import { waitFor } from "../../support/wait-for";
import { octokitFor } from "./support";

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
