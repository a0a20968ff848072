/**
 * The demo agent as a real node process, driven by the same ClaudeCodeRunner as Claude Code, in a
 * real git worktree of a clone of a bare remote. Uses the demo Target's own project and tickets
 * (src/sandbox/seeds/demo-project.ts), so these tests also prove the demo's six tickets behave.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { createDemoAgentRunner } from "../../../src/adapters/agent/demo-agent-runner";
import type { ClaudeCodeRunnerOptions } from "../../../src/adapters/agent/claude-code-runner";
import { DEMO_FILES, DEMO_ISSUES } from "../../../src/sandbox/seeds/demo-project";
import type { AgentEvent, StageName, StageRequest, StageResult } from "../../../src/ports/agent-runner";
import { git, makeRemote, makeTempDir } from "../../support/git-fixtures";
import type { RemoteFixture } from "../../support/git-fixtures";
import { buildDemoAgent } from "./helpers";

const codeAnswer = z.object({ title: z.string().min(1), summary: z.string() }).strict();
const verifyAnswer = z.object({
  criteria: z.array(z.object({ criterion: z.string(), verdict: z.enum(["met", "unmet", "unverifiable"]), evidence: z.string() }).strict()),
});
const CODE_SCHEMA = { type: "object", properties: { title: { type: "string" }, summary: { type: "string" } }, required: ["title", "summary"] };
const VERIFY_SCHEMA = { type: "object", properties: { criteria: { type: "array" } }, required: ["criteria"] };

function issueBody(title: string, body: string): string {
  return `You are working on a ticket.\n<<<ISSUE\n${title}\n${body}\nISSUE>>>\nDo the work.`;
}

function nodeTest(cwd: string): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--test"], { cwd, env: { ...process.env, NODE_TEST_CONTEXT: undefined } }, (err) => resolve(err ? 1 : 0));
  });
}

describe("the demo agent (real process, real git)", function () {
  this.timeout(90_000);
  let distDir: string;
  let fx: RemoteFixture;
  let clone: string;
  let logDir: string;

  before(async () => {
    distDir = await buildDemoAgent();
  });
  after(async () => {
    await rm(distDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    fx = await makeRemote({ files: DEMO_FILES });
    clone = await fx.clone("clone");
    logDir = await makeTempDir("tr-demo-logs-");
  });
  afterEach(async () => {
    await fx.cleanup();
    await rm(logDir, { recursive: true, force: true });
  });

  let laneCount = 0;
  async function lane(ticket: number): Promise<string> {
    laneCount += 1;
    const path = join(clone, ".worktrees", `ticket-${ticket}-${laneCount}`);
    await git(clone, ["worktree", "add", "-q", "-b", `agent/${ticket}-${laneCount}`, path, "origin/main"]);
    return path;
  }

  async function stage(
    cwd: string,
    name: StageName,
    ticket: number,
    issue: { title: string; body: string },
    opts: { runner?: ClaudeCodeRunnerOptions; request?: Partial<StageRequest> } = {},
  ): Promise<{ result: StageResult; events: AgentEvent[] }> {
    const events: AgentEvent[] = [];
    const runner = createDemoAgentRunner(distDir, { killGraceMs: 1000, ...opts.runner });
    const result = await runner.run({
      stage: name,
      ticket,
      prompt: issueBody(issue.title, issue.body),
      cwd,
      logDir,
      logName: `${ticket}-${name}-${events.length}-${Date.now()}`,
      jsonSchema: name === "verify" ? VERIFY_SCHEMA : CODE_SCHEMA,
      timeoutMs: 60_000,
      maxTurns: 30,
      ...opts.request,
      onEvent: (e) => {
        events.push(e);
        opts.request?.onEvent?.(e);
      },
    });
    return { result, events };
  }

  const demo = (n: number): { title: string; body: string } => DEMO_ISSUES[n - 1]!;

  it("implement writes and commits the files as itself; verify grades every criterion met by reading the worktree", async () => {
    const wt = await lane(1);
    const impl = await stage(wt, "implement", 1, demo(1));
    assert.equal(impl.result.outcome, "success", impl.result.detail);
    const answer = codeAnswer.parse(impl.result.structured);
    assert.equal(answer.title, "Add a formatPrice helper");
    assert.equal(await git(wt, ["log", "-1", "--format=%an <%ae>|%s"]), "Ticket Runner demo agent <demo-agent@ticket-runner.invalid>|Add a formatPrice helper");
    assert.equal(await git(wt, ["status", "--porcelain"]), "", "nothing left uncommitted");
    assert.equal(await nodeTest(wt), 0, "the project's own tests pass");
    assert.ok(impl.events.some((e) => e.kind === "tool" && e.name === "Write" && e.summary === "src/format.js"));
    // The commit's tool result names it from the commit's own summary line (ADR 0484), as `rev-parse --short` would.
    const head = await git(wt, ["rev-parse", "HEAD"]);
    const named = impl.events.flatMap((e) => (e.kind === "tool-result" ? (/^\[([0-9a-f]+)\] Add a formatPrice helper$/.exec(e.summary) ?? []) : []));
    assert.equal(named.length, 2, "one commit result");
    assert.ok(named[1]!.length >= 7 && head.startsWith(named[1]!), `${named[1]} names HEAD ${head}`);

    const verify = await stage(wt, "verify", 1, demo(1));
    assert.equal(verify.result.outcome, "success");
    const grades = verifyAnswer.parse(verify.result.structured).criteria;
    assert.deepEqual(
      grades.map((g) => g.verdict),
      ["met", "met"],
    );
    assert.equal(grades[0]!.criterion, "`src/format.js` exports `formatPrice(cents, currency)`");
    assert.match(grades[0]!.evidence, /^src\/format\.js:1 contains/);
  });

  it("verify really reads the worktree: a file changed after implement is graded unmet", async () => {
    const wt = await lane(1);
    await stage(wt, "implement", 1, demo(1));
    await git(wt, ["rm", "-q", "test/format.test.js"]);
    const verify = await stage(wt, "verify", 1, demo(1));
    const grades = verifyAnswer.parse(verify.result.structured).criteria;
    assert.deepEqual(
      grades.map((g) => g.verdict),
      ["met", "unmet"],
    );
    assert.equal(grades[1]!.evidence, "test/format.test.js does not exist");
  });

  it("fail-checks-once: implement's files fail the repo's own tests, fix's pass", async () => {
    const wt = await lane(2);
    assert.equal((await stage(wt, "implement", 2, demo(2))).result.outcome, "success");
    assert.notEqual(await nodeTest(wt), 0, "the first attempt fails the Checks");
    const before = await git(wt, ["rev-parse", "HEAD"]);
    const fix = await stage(wt, "fix", 2, demo(2));
    assert.equal(fix.result.outcome, "success");
    codeAnswer.parse(fix.result.structured);
    assert.notEqual(await git(wt, ["rev-parse", "HEAD"]), before, "fix added a commit");
    assert.equal(await nodeTest(wt), 0, "the fix passes the Checks");
    const verify = await stage(wt, "verify", 2, demo(2));
    assert.deepEqual(
      verifyAnswer.parse(verify.result.structured).criteria.map((g) => g.verdict),
      ["met", "met"],
    );
  });

  it("unmet-criteria: verify says unmet, fix adds a commit but cannot meet them", async () => {
    const wt = await lane(3);
    await stage(wt, "implement", 3, demo(3));
    const v1 = verifyAnswer.parse((await stage(wt, "verify", 3, demo(3))).result.structured).criteria;
    assert.deepEqual(
      v1.map((g) => g.verdict),
      ["unmet", "unmet"],
    );
    const before = await git(wt, ["rev-parse", "HEAD"]);
    assert.equal((await stage(wt, "fix", 3, demo(3))).result.outcome, "success");
    assert.notEqual(await git(wt, ["rev-parse", "HEAD"]), before, "a fix Stage always adds a commit");
    const v2 = verifyAnswer.parse((await stage(wt, "verify", 3, demo(3))).result.structured).criteria;
    assert.deepEqual(
      v2.map((g) => g.verdict),
      ["unmet", "unmet"],
    );
  });

  it("conflict: implement pushes a teammate's edit to the base, the rebase stops, the conflict Stage finishes it", async () => {
    const wt = await lane(4);
    const baseBefore = await git(fx.remote, ["rev-parse", "refs/heads/main"]);
    assert.equal((await stage(wt, "implement", 4, demo(4))).result.outcome, "success");
    const baseAfter = await git(fx.remote, ["rev-parse", "refs/heads/main"]);
    assert.notEqual(baseAfter, baseBefore, "the teammate pushed to main");
    assert.equal(await git(fx.remote, ["log", "-1", "--format=%an", "main"]), "A. Teammate");
    assert.equal(await git(fx.remote, ["rev-parse", "main~1"]), baseBefore, "on top of the old base");

    await git(wt, ["fetch", "-q", "origin", "+main:refs/remotes/origin/main"]);
    await assert.rejects(git(wt, ["rebase", "origin/main"]), "the rebase stops on the conflict");
    const result = await stage(wt, "conflict", 4, demo(4));
    assert.equal(result.result.outcome, "success", result.result.detail);
    codeAnswer.parse(result.result.structured);
    const gitDir = await git(wt, ["rev-parse", "--path-format=absolute", "--git-dir"]);
    assert.ok(!existsSync(join(gitDir, "rebase-merge")) && !existsSync(join(gitDir, "rebase-apply")), "no rebase in progress");
    assert.equal(await git(wt, ["status", "--porcelain"]), "");
    assert.equal(await git(wt, ["merge-base", "--is-ancestor", "origin/main", "HEAD"]).then(() => true), true, "rebased onto the new base");
    assert.match(readFileSync(join(wt, "README.md"), "utf8"), /Currency: euro \(EUR\)/);
    assert.deepEqual(
      verifyAnswer.parse((await stage(wt, "verify", 4, demo(4))).result.structured).criteria.map((g) => g.verdict),
      ["met"],
    );

    // A resumed implement for the same ticket does not push a second teammate commit.
    const wt2 = await lane(4);
    assert.equal((await stage(wt2, "implement", 4, demo(4))).result.outcome, "success");
    assert.equal(await git(fx.remote, ["rev-parse", "refs/heads/main"]), baseAfter);
  });

  it("rate-limit-once: the first session is rate-limited (429, rejected event, wording) and changes nothing; the next succeeds", async () => {
    const wt = await lane(6);
    const head = await git(wt, ["rev-parse", "HEAD"]);
    const first = await stage(wt, "implement", 6, demo(6));
    assert.equal(first.result.outcome, "rate-limited");
    assert.equal(first.result.rateLimitSign, "api-error-429");
    assert.notEqual(first.result.exitCode, 0);
    assert.ok(first.events.some((e) => e.kind === "rate-limit" && e.status === "rejected"));
    assert.equal(await git(wt, ["rev-parse", "HEAD"]), head, "nothing committed");
    assert.equal(await git(wt, ["status", "--porcelain"]), "");
    const memory = JSON.parse(readFileSync(join(clone, ".git", "ticket-runner-demo", "6.json"), "utf8"));
    assert.deepEqual(memory.rateLimited, ["any"]);

    const again = await stage(wt, "implement", 6, demo(6));
    assert.equal(again.result.outcome, "success");
    assert.notEqual(await git(wt, ["rev-parse", "HEAD"]), head);
  });

  it("rate-limit-once:verify limits the first verify only; TICKET_RUNNER_DEMO_STATE moves the memory", async () => {
    const stateDir = await makeTempDir("tr-demo-state-");
    const issue = {
      title: "Limited at verify",
      body:
        "- [ ] x\n\n```ticket-runner-demo\n" +
        JSON.stringify({ files: { "x.txt": "x\n" }, criteria: [{ file: "x.txt", contains: "x" }], behaviours: ["rate-limit-once:verify"] }) +
        "\n```",
    };
    const runner = { baseEnv: { ...process.env, TICKET_RUNNER_DEMO_STATE: stateDir } };
    const wt = await lane(9);
    assert.equal((await stage(wt, "implement", 9, issue, { runner })).result.outcome, "success");
    assert.equal((await stage(wt, "verify", 9, issue, { runner })).result.outcome, "rate-limited");
    assert.equal((await stage(wt, "verify", 9, issue, { runner })).result.outcome, "success");
    assert.ok(existsSync(join(stateDir, "9.json")));
    await rm(stateDir, { recursive: true, force: true });
  });

  it("crash: exits 1 mid-stream => nonzero-exit", async () => {
    const wt = await lane(10);
    const issue = { title: "Crashes", body: "- [ ] x\n```ticket-runner-demo\n" + JSON.stringify({ files: { "x.txt": "x" }, behaviours: ["crash"] }) + "\n```" };
    const { result } = await stage(wt, "implement", 10, issue);
    assert.equal(result.outcome, "nonzero-exit");
    assert.equal(result.exitCode, 1);
    assert.match(result.detail ?? "", /simulated crash during implement/);
  });

  it("slow:<ms> emits progress while it waits; burst:<n> emits n events", async () => {
    const wt = await lane(11);
    const slow = { title: "Slow", body: "```ticket-runner-demo\n" + JSON.stringify({ files: { "s.txt": "s" }, behaviours: ["slow:300"] }) + "\n```" };
    const s = await stage(wt, "implement", 11, slow);
    assert.equal(s.result.outcome, "success");
    assert.equal(s.events.filter((e) => e.kind === "text" && e.text.startsWith("Still working")).length, 5);

    const wt2 = await lane(12);
    const burst = { title: "Burst", body: "```ticket-runner-demo\n" + JSON.stringify({ files: { "b.txt": "b" }, behaviours: ["burst:5000"] }) + "\n```" };
    // The host's event loop keeps turning while the burst is read: timers fire between events.
    let eventsSeen = 0;
    const ticksAt: number[] = [];
    const timer = setInterval(() => ticksAt.push(eventsSeen), 1);
    const b = await stage(wt2, "implement", 12, burst, { request: { onEvent: () => (eventsSeen += 1) } });
    clearInterval(timer);
    assert.equal(b.result.outcome, "success");
    assert.ok(
      ticksAt.some((n) => n > 100 && n < 4900),
      `timers ran mid-burst (event counts at ticks: ${ticksAt.slice(0, 20).join(",")}…)`,
    );
    const burstEvents = b.events.filter(
      (e) => (e.kind === "tool" && e.summary.startsWith("burst/")) || (e.kind === "tool-result" && e.summary.startsWith("line ")),
    );
    assert.equal(burstEvents.length, 5000);
  });

  describe("bad input from the issue is a clear error result, never a crash or a shell", () => {
    const cases: [string, string, RegExp][] = [
      ["no block", "Just words.\n- [ ] x", /has no ```ticket-runner-demo block/],
      ["not JSON", "```ticket-runner-demo\n{files: nope}\n```", /not valid JSON/],
      ["path escape", "```ticket-runner-demo\n" + JSON.stringify({ files: { "../outside.txt": "x" } }) + "\n```", /must not contain '\.\.'/],
      ["into .git", "```ticket-runner-demo\n" + JSON.stringify({ files: { ".git/hooks/pre-commit": "x" } }) + "\n```", /must not point into \.git/],
      ["unknown key", "```ticket-runner-demo\n" + JSON.stringify({ files: { "a.txt": "a" }, runThis: "rm -rf /" }) + "\n```", /Unrecognized key.*runThis/],
      ["unknown behaviour", "```ticket-runner-demo\n" + JSON.stringify({ files: { "a.txt": "a" }, behaviours: ["explode"] }) + "\n```", /unknown behaviour/],
    ];
    for (const [name, body, why] of cases) {
      it(`${name} => nonzero-exit naming the problem`, async () => {
        const wt = await lane(20);
        const { result } = await stage(wt, "implement", 20, { title: "Bad", body });
        assert.equal(result.outcome, "nonzero-exit");
        assert.match(result.text, why);
        assert.equal(await git(wt, ["status", "--porcelain"]), "");
        assert.ok(!existsSync(join(wt, "..", "outside.txt")));
      });
    }

    it("shell metacharacters in the title and paths are only ever data", async () => {
      const wt = await lane(21);
      const marker = join(wt, "..", "pwned");
      const title = `$(touch ${marker}); \`touch ${marker}\` && echo "'`;
      const body = "```ticket-runner-demo\n" + JSON.stringify({ files: { "a b;$(touch x).txt": "ok\n" } }) + "\n```";
      const { result } = await stage(wt, "implement", 21, { title, body });
      assert.equal(result.outcome, "success", result.detail);
      assert.equal(await git(wt, ["log", "-1", "--format=%s"]), title);
      assert.ok(existsSync(join(wt, "a b;$(touch x).txt")));
      assert.ok(!existsSync(marker) && !existsSync(join(wt, "x")), "nothing was executed");
    });
  });

  it("takes a prompt over stdin when it is too big for argv", async () => {
    const wt = await lane(1);
    const { result } = await stage(wt, "implement", 1, demo(1), { runner: { promptArgMaxBytes: 64 } });
    assert.equal(result.outcome, "success", result.detail);
    assert.equal(codeAnswer.parse(result.structured).title, "Add a formatPrice helper");
  });
});
