/** `ticket-runner board` as a real process against the seeded sandbox: the same model as the tree. */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { resolveHostIdentity } from "../../../src/adapters/node-host";
import { startSandbox, type SandboxHandle } from "../../../src/sandbox/start";
import { seedBoard, type SeededBoard } from "../../support/board-seed";

const ROOT = join(__dirname, "..", "..", "..");

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--require", "tsx/cjs", join(ROOT, "src/cli/main.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, TICKET_RUNNER_STAGE: "", GITHUB_TOKEN: "", GH_TOKEN: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("ticket-runner board (CLI)", function () {
  this.timeout(60_000);
  let sandbox: SandboxHandle;
  let seeded: SeededBoard;
  let env: Record<string, string>;
  const hostEnv = { TICKET_RUNNER_HOST_NAME: "desk" };

  before(async () => {
    sandbox = await startSandbox({ quiet: true });
    seeded = await seedBoard(sandbox, resolveHostIdentity({ env: { ...process.env, ...hostEnv } }));
    env = { ...hostEnv, TICKET_RUNNER_TOKEN: seeded.tokens.ana, TICKET_RUNNER_RUN_ROOT: seeded.runRoot };
  });
  after(async () => {
    await sandbox?.stop();
    if (seeded) rmSync(seeded.runRoot, { recursive: true, force: true });
  });

  it("prints the board's sections with the Run column", async () => {
    const r = await cli(["board", "--repo", "acme/shop", "--api-url", sandbox.apiUrl], env);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^acme\/shop · as ana on desk · 9 tickets · 1 running here$/m);
    assert.match(r.out, /^Running here \(1\)\n {2}#1 {5}Add a discount code field to checkout\s+● desk · implement · 12m$/m);
    assert.match(r.out, /^Stale \(1\)\n {2}#3 .*⚠ stale 2h · laptop-2$/m);
    assert.match(r.out, new RegExp(`lease ${seeded.leaseUrls[seeded.tickets.claimedElsewhere]}`));
  });

  it("prints the same model as JSON, and --mine narrows it", async () => {
    const r = await cli(["board", "--json", "--repo", "acme/shop", "--api-url", sandbox.apiUrl], env);
    assert.equal(r.code, 0, r.err);
    const model = JSON.parse(r.out) as { sections: { id: string; count: number; rows: { number: number; runColumn: string }[] }[]; runningHere: number };
    assert.deepEqual(
      model.sections.map((s) => [s.id, s.count]),
      [
        ["running-here", 1],
        ["claimed-elsewhere", 2],
        ["stale", 1],
        ["frontier", 3],
        ["blocked", 0],
        ["needs-person", 1],
        ["stranded", 1],
      ],
    );
    const mine = JSON.parse((await cli(["board", "--json", "--mine", "--repo", "acme/shop", "--api-url", sandbox.apiUrl], env)).out) as typeof model;
    assert.deepEqual(
      mine.sections.flatMap((s) => s.rows.map((x) => x.number)),
      [seeded.tickets.runningHere, seeded.tickets.stranded],
    );
  });

  it("fails with the reason when the token is refused", async () => {
    const r = await cli(["board", "--repo", "acme/shop", "--api-url", sandbox.apiUrl], { ...env, TICKET_RUNNER_TOKEN: "trsb_refused_token_0000000000" });
    assert.equal(r.code, 1);
    assert.match(r.err, /could not read acme\/shop: .*401/);
    assert.ok(!r.err.includes("trsb_refused_token_0000000000"), "the token is never printed");
  });

  it("refuses an API URL that carries a token, or is not http(s), without printing it or asking anything (ADR 0221)", async () => {
    // Plain hex: no redaction pattern knows this shape, so only the refusal keeps it in.
    const secret = "5f2c9a41d0b7e86c3a1f4e9d2b8c7a60";
    const api = new URL(sandbox.apiUrl);
    const bad = [
      `http://${secret}@${api.host}`,
      `http://x-access-token:${secret}@${api.host}`,
      `${sandbox.apiUrl}/?access_token=${secret}`,
      `${sandbox.apiUrl}/#${secret}`,
      `file:///${secret}`,
      `ftp://${api.host}/${secret}`,
    ];
    await sandbox.admin.clearRequestLog();
    const runs = [
      ...bad.map((url) => ["--api-url", url] as const).map((opt) => cli(["board", "--repo", "acme/shop", ...opt], env)),
      cli(["board", "--repo", "acme/shop"], { ...env, TICKET_RUNNER_API_URL: bad[0]! }),
    ];
    for (const r of await Promise.all(runs)) {
      const said = `exit ${r.code}\n${r.out}\n${r.err}`;
      assert.equal(r.code, 2, said);
      assert.ok(!`${r.out}${r.err}`.includes(secret), `the secret is never printed: ${said}`);
      assert.match(r.err, /(--api-url|TICKET_RUNNER_API_URL) must (not carry credentials|be an http\(s\) URL)/, said);
    }
    assert.deepEqual(await sandbox.admin.requestLog(), [], "nothing was asked of the API");
  });
});
