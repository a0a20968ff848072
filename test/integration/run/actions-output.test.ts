/* eslint-disable no-control-regex -- this test checks no terminal escape sequence is written */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunWorld } from "./run-helpers";

describe("run (integration): inside GitHub Actions", function () {
  this.timeout(180_000);
  let w: RunWorld;
  let dir: string;
  afterEach(async () => {
    await w?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("with GITHUB_ACTIONS=true, even on a terminal: no redraws, and the summary with its PR link goes to GITHUB_STEP_SUMMARY", async () => {
    w = await RunWorld.make();
    dir = mkdtempSync(join(tmpdir(), "tr-actions-int-"));
    const summaryFile = join(dir, "step-summary.md");
    const [n] = await w.tickets([w.ticket("run in actions")]);
    const host = w.hostEnv("a", {
      TICKET_RUNNER_TTY: "",
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_SERVER_URL: "https://github.example",
    });
    const run = w.cli(["run"], { host, tty: true });
    const code = await run.exited;
    const text = run.out.join("\n");
    assert.equal(code, 0, text);
    assert.doesNotMatch(text, /\x1b\[\d+A/, "no redraws in Actions");
    const md = readFileSync(summaryFile, "utf8");
    assert.match(
      md,
      new RegExp(
        `\\| \\[#${n}\\]\\(https://github\\.example/[^/]+/[^/]+/issues/${n}\\) \\| merged \\| \\[#\\d+\\]\\(https://github\\.example/[^/]+/[^/]+/pull/\\d+\\) \\|`,
      ),
      md,
    );
    assert.match(md, /Exit code: 0/);
    // The ticket's transcript is one group, workflow commands stopped inside it.
    const group = new RegExp(
      `^::group::#${n} .* · merged\\n::stop-commands::([0-9a-f]{32})\\n[\\s\\S]*?\\[implement\\][\\s\\S]*?\\n::\\1::\\n::endgroup::$`,
      "m",
    );
    assert.match(text.replace(/\r/g, ""), group, text);
  });
});
