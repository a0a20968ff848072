/**
 * An agent Stage must never drive the orchestrator that runs it: `ticket-runner` (the built
 * dist/cli.js, as `npm run test:integration` builds it) refuses to run while TICKET_RUNNER_STAGE is set.
 */
import { strict as assert } from "node:assert";
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./helpers";

const CLI = join(REPO_ROOT, "dist/cli.js");

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd: REPO_ROOT }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe("ticket-runner inside an agent Stage", function () {
  this.timeout(120_000);

  before(() => {
    // Normally built by `npm run test:integration`; build here when this file runs on its own.
    if (!existsSync(CLI)) execFileSync("npm", ["run", "-s", "build"], { cwd: REPO_ROOT, stdio: "ignore" });
  });

  const clean = (): NodeJS.ProcessEnv => {
    const env = { ...process.env };
    delete env.TICKET_RUNNER_STAGE;
    return env;
  };

  it("runs normally outside a Stage", async () => {
    const r = await runCli(["help"], clean());
    assert.equal(r.code, 0, r.stderr);
  });

  for (const args of [["help"], ["run"], ["version"], []]) {
    it(`refuses \`ticket-runner ${args.join(" ")}\` with exit 2 when TICKET_RUNNER_STAGE is set`, async () => {
      const r = await runCli(args, { ...clean(), TICKET_RUNNER_STAGE: "implement" });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /refuses to run inside an agent Stage \(TICKET_RUNNER_STAGE=implement\)/);
      assert.equal(r.stdout, "");
    });
  }
});
