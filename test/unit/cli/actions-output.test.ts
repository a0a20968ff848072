import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { annotations, escapeCommandData, escapeCommandProperty, inActions, summaryMarkdown } from "../../../src/cli/actions-output";
import { reportToActions } from "../../../src/cli/actions-report";
import type { RunSummary } from "../../../src/core/run/summary";
import type { Log } from "../../../src/ports/log";

const HOSTILE = "checks failed\n::error::pwned 100%\r\u001b[31m<img src=x> [click](https://evil.example) @owner fixes #3";

const SUMMARY: RunSummary = {
  runId: "r-1",
  rows: [
    { ticket: 4, ending: "merged", line: "PR #12" },
    { ticket: 7, ending: "handed-off", line: HOSTILE },
    { ticket: 9, ending: "failed", line: "git push refused" },
  ],
  lines: ["Run r-1: 3 ticket(s) taken", "  #4 merged  PR #12", "  #7 handed off  x", "  #9 failed  y", "Done: 1 merged, 1 handed off."],
  exitCode: 1,
};

const silent: Log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} } as unknown as Log;

describe("ticket-runner run in GitHub Actions", () => {
  it("is on only when GITHUB_ACTIONS is exactly true", () => {
    assert.equal(inActions({ GITHUB_ACTIONS: "true" }), true);
    assert.equal(inActions({ GITHUB_ACTIONS: "1" }), false);
    assert.equal(inActions({}), false);
  });

  it("escapes workflow-command data and properties as GitHub's doc says, and drops control characters", () => {
    assert.equal(escapeCommandData("a%b\r\nc\u0007\u001b[0m\td"), "a%25b%0D%0Ac[0md");
    assert.equal(escapeCommandProperty("t: a, b%"), "t%3A a%2C b%25");
  });

  it("annotates hand-offs as warnings and failures as errors, one line each, none a command of its own", () => {
    const lines = annotations(SUMMARY.rows);
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^::warning title=Ticket #7 handed off::checks failed%0A::error::pwned 100%25%0D\[31m/);
    assert.match(lines[1]!, /^::error title=Ticket #9 failed::git push refused$/);
    for (const line of lines) assert.ok(!/[\r\n]/.test(line) && !line.includes("\u001b"), line);
  });

  it("writes a Markdown table with links to each issue and PR, remote text inert", () => {
    const md = summaryMarkdown(SUMMARY, { serverUrl: "https://github.com/", repo: "o/r" });
    assert.match(md, /\| \[#4\]\(https:\/\/github\.com\/o\/r\/issues\/4\) \| merged \| \[#12\]\(https:\/\/github\.com\/o\/r\/pull\/12\) \|/);
    assert.match(md, /\[#7\]\(https:\/\/github\.com\/o\/r\/issues\/7\) \| handed-off \| {2}\|/);
    const row7 = md.split("\n").find((l) => l.includes("issues/7"))!;
    assert.doesNotMatch(row7.slice(row7.indexOf("handed-off")), /(?<!\\)<img|(?<!\\)\]\(|@owner/);
    assert.ok(!row7.includes("\u001b"));
    assert.match(md, /Done: 1 merged, 1 handed off\./);
    assert.match(md, /Exit code: 1/);
  });

  it("appends the summary to GITHUB_STEP_SUMMARY and prints the annotations", () => {
    const dir = mkdtempSync(join(tmpdir(), "tr-actions-"));
    try {
      const file = join(dir, "summary.md");
      const out: string[] = [];
      const env = { GITHUB_STEP_SUMMARY: file, GITHUB_SERVER_URL: "http://127.0.0.1:9" };
      reportToActions(SUMMARY, env, { owner: "o", repo: "r" }, (l) => out.push(l), silent);
      reportToActions(SUMMARY, env, { owner: "o", repo: "r" }, (l) => out.push(l), silent);
      assert.equal(out.length, 4);
      assert.equal(readFileSync(file, "utf8").split("### Ticket Runner").length, 3);
      assert.match(readFileSync(file, "utf8"), /http:\/\/127\.0\.0\.1:9\/o\/r\/pull\/12/);
      const warned: string[] = [];
      reportToActions(SUMMARY, { GITHUB_STEP_SUMMARY: join(dir, "missing", "x.md") }, { owner: "o", repo: "r" }, () => {}, {
        ...silent,
        warn: (m: string) => warned.push(m),
      } as Log);
      assert.equal(warned.length, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
