/**
 * The real Claude Code (2.1.332, pinned by scripts/install-agents.sh) works whole tickets through
 * `ticket-runner run` on the sandbox, against the scripted Anthropic model server: a merge with the
 * default `ticket-runner init` config; a limit released then resumed in the same session; the agent
 * unavailable (a 529 or 500 outage, the connection lost, not signed in, not installed, bypass refused
 * as root) stopping the Run
 * with nothing handed off; a kill mid-stream resumed. Nothing sleeps: every wait polls a condition.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import { CLAUDE_CODE_VERSION } from "../../../src/sandbox/model-server/agent-wiring";
import { waitFor } from "../../support/wait-for";
import { claudeWorld, processesUnder, stageRequests } from "./claude-world";
import type { ClaudeWorld } from "./claude-world";

const RUN_MS = 240_000;

describe("the real Claude Code through whole tickets on the sandbox", function () {
  this.timeout(600_000);
  let cw: ClaudeWorld | null = null;
  afterEach(async () => {
    await cw?.dispose();
    cw = null;
  });

  async function handoffs(n: number): Promise<number> {
    return (await cw!.world.comments(n)).filter((c) => c.body.startsWith(HANDOFF_MARKER)).length;
  }

  it("with the default `ticket-runner init` config, takes a ticket to a merge", async () => {
    cw = await claudeWorld({ config: null });
    const config = JSON.parse(readFileSync(join(cw.world.target.clone, "ticket-runner.json"), "utf8"));
    assert.deepEqual(config.agent, { kind: "claude" }, "init chose the real claude on the PATH, with nothing else set");
    const [n] = await cw.world.tickets([cw.world.ticket("greet")]);
    const run = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });

    const why = `\n${run.out.join("\n")}\n${run.err.join("\n")}`;
    assert.equal(run.code, 0, why);
    assert.match(run.out.join("\n"), /merged/, why);
    const issue = await cw.world.issue(n!);
    assert.equal(issue.state, "closed");
    assert.equal((await cw.world.pulls()).filter((p) => p.merged_at).length, 1);
    const asked = cw.model.requests().filter((r) => r.ticket === n);
    assert.ok(asked.length > 0 && asked.every((r) => r.userAgent.startsWith(`claude-cli/${CLAUDE_CODE_VERSION}`)), "the real binary, pinned, did the work");
    assert.ok(stageRequests(cw.model, n!, "implement").length > 0 && stageRequests(cw.model, n!, "verify").length > 0);
  });

  it("a subscription's 5-hour limit mid-implement: released with its reset time, then resumed in the same session without paying again for what it did", async () => {
    cw = await claudeWorld({ config: { lanes: 1, agent: { kind: "claude" } }, auth: "subscription" });
    const [n] = await cw.world.tickets([cw.world.ticket("greet")]);
    // Step 0 writes the files; the commit (step 1) meets the limit.
    cw.model.faults.add({ ticket: n, stage: "implement", step: 1, answer: "rate-limit", limit: "five_hour", resetInSeconds: 7200 });
    const first = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    const why = `\n${first.out.join("\n")}\n${first.err.join("\n")}`;
    assert.equal(first.code, 0, why);
    assert.match(first.out.join("\n"), /released\s+rate limited at implement \(resets \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/, why);
    assert.match(first.out.at(-1) ?? "", /^Rate limited: the limit resets \d{4}-\d\d-\d\d \d\d:\d\d UTC; run `ticket-runner run` again then\.$/, why);
    assert.deepEqual((await cw.world.issue(n!)).labelNames, ["ready-for-agent"]);
    assert.equal(await handoffs(n!), 0);
    const interrupted = stageRequests(cw.model, n!, "implement");
    const session = interrupted[0]!.session;
    assert.deepEqual(
      interrupted.map((r) => `${r.step}:${r.answer}`),
      ["0:message", "1:rate-limit"],
    );

    const second = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    assert.equal(second.code, 0, `\n${second.out.join("\n")}\n${second.err.join("\n")}`);
    assert.equal((await cw.world.issue(n!)).state, "closed");
    const resumed = stageRequests(cw.model, n!, "implement").slice(interrupted.length);
    assert.ok(resumed.length > 0 && resumed.every((r) => r.session === session), "the interrupted Stage continued its own session");
    assert.ok(
      resumed.every((r) => r.step >= 1),
      `step 0 was not paid again: ${resumed.map((r) => r.step).join(",")}`,
    );
  });

  it("a weekly limit at verify: released; the resume pays nothing for implement and continues verify's session", async () => {
    cw = await claudeWorld({ config: { lanes: 1, agent: { kind: "claude" } }, auth: "subscription" });
    const [n] = await cw.world.tickets([cw.world.ticket("greet")]);
    cw.model.faults.add({ ticket: n, stage: "verify", step: 1, answer: "rate-limit", limit: "seven_day", resetInSeconds: 3 * 24 * 3600 });
    const first = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    assert.match(first.out.join("\n"), /released\s+rate limited at verify \(resets/, first.out.join("\n"));
    const implementBefore = stageRequests(cw.model, n!, "implement").length;
    const verifySession = stageRequests(cw.model, n!, "verify")[0]!.session;

    const second = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    assert.equal(second.code, 0, second.out.join("\n"));
    assert.equal((await cw.world.issue(n!)).state, "closed");
    assert.equal(stageRequests(cw.model, n!, "implement").length, implementBefore, "implement was finished: not run again");
    const verifyAfter = stageRequests(cw.model, n!, "verify").filter((r) => r.answer === "message" && r.step >= 1);
    assert.ok(verifyAfter.length > 0 && verifyAfter.every((r) => r.session === verifySession), "verify went on in its session");
  });

  it("a 529 outage with three tickets queued ends with 0 handed off and the Run stopped with a message", async () => {
    // Claude Code's own retries (10, about 3 minutes) are cut to one so the test does not wait them out.
    cw = await claudeWorld({ config: { lanes: 1, agent: { kind: "claude" } }, env: { CLAUDE_CODE_MAX_RETRIES: "1" } });
    const tickets = await cw.world.tickets([cw.world.ticket("one"), cw.world.ticket("two"), cw.world.ticket("three")]);
    cw.model.faults.add({ answer: "overloaded", times: 0 });
    const run = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    const text = `${run.out.join("\n")}\n${run.err.join("\n")}`;
    assert.equal(run.code, 1, text);
    assert.doesNotMatch(run.out.join("\n"), /^\s+#\d+\s+handed off/m, text);
    assert.match(
      run.out.at(-1) ?? "",
      /^Stopped: the model provider is down or unreachable \(.*529.*\)\. Nothing was handed off; .* then run `ticket-runner run` again\.$/,
      text,
    );
    for (const n of tickets) {
      assert.deepEqual((await cw.world.issue(n)).labelNames, ["ready-for-agent"], `#${n} back on the Frontier`);
      assert.equal(await handoffs(n), 0);
    }
    assert.deepEqual([...new Set(cw.model.requests().map((r) => r.ticket))], [tickets[0]], "the Run took no second ticket");
  });

  for (const c of [
    { name: "500 on every request", fault: "server-error" as const, said: /500/ },
    { name: "the connection lost on every request", fault: "drop" as const, said: /connect|socket|network|fetch/i },
  ]) {
    it(`the provider down (${c.name}): the Run stops with a message, releases what it held, hands nothing off`, async () => {
      cw = await claudeWorld({ config: { lanes: 1, agent: { kind: "claude" } }, env: { CLAUDE_CODE_MAX_RETRIES: "1" } });
      const tickets = await cw.world.tickets([cw.world.ticket("one"), cw.world.ticket("two")]);
      cw.model.faults.add({ answer: c.fault, times: 0 });
      const run = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
      const text = `${run.out.join("\n")}\n${run.err.join("\n")}`;
      assert.equal(run.code, 1, text);
      const last = run.out.at(-1) ?? "";
      assert.match(last, /^Stopped: the model provider is down or unreachable \(.+\)\. Nothing was handed off; .* then run `ticket-runner run` again\.$/, text);
      assert.match(last, c.said, text);
      for (const n of tickets) {
        assert.deepEqual((await cw.world.issue(n)).labelNames, ["ready-for-agent"], `#${n} back on the Frontier`);
        assert.equal(await handoffs(n), 0);
      }
      assert.deepEqual([...new Set(cw.model.requests().map((r) => r.ticket))], [tickets[0]], "the Run took no second ticket");
    });
  }

  for (const c of [
    {
      name: "not signed in",
      opts: { auth: "none" as const },
      line: /^Stopped: the agent is not signed in on this Host \(Not logged in · Please run \/login\)\. .*Sign the agent in/,
    },
    {
      name: "not installed",
      opts: { onPath: false },
      line: /^Stopped: the agent's executable is not installed on this Host \(could not start "claude": not found on PATH\)\. .*Install the agent/,
    },
  ]) {
    it(`the agent ${c.name}: the Run stops with what to do, nothing handed off`, async () => {
      cw = await claudeWorld({ config: { lanes: 1, agent: { kind: "claude" } }, ...c.opts });
      const tickets = await cw.world.tickets([cw.world.ticket("one"), cw.world.ticket("two")]);
      const run = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
      assert.equal(run.code, 1, run.out.join("\n"));
      assert.match(run.out.at(-1) ?? "", c.line, run.out.join("\n"));
      for (const n of tickets) assert.deepEqual((await cw.world.issue(n)).labelNames, ["ready-for-agent"]);
      assert.equal(await handoffs(tickets[0]!), 0);
    });
  }

  it("bypassPermissions: runs in the sandbox (uid 1000 inside, even under root); without it, refused by Claude Code as root (the Run stops, nothing handed off)", async () => {
    cw = await claudeWorld({ config: { lanes: 1, agent: { kind: "claude", permissionMode: "bypassPermissions" } } });
    const [n] = await cw.world.tickets([cw.world.ticket("one")]);
    const run = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    assert.equal(run.code, 0, run.out.join("\n"));
    assert.equal((await cw.world.issue(n!)).state, "closed");
    if (process.getuid?.() !== 0) return;
    // As before ADR 0290: the agent beside the Run, as root.
    await cw.dispose();
    cw = await claudeWorld({ config: { lanes: 1, isolation: "none", agent: { kind: "claude", permissionMode: "bypassPermissions" } } });
    const [m] = await cw.world.tickets([cw.world.ticket("one")]);
    const refused = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    assert.equal(refused.code, 1, refused.out.join("\n"));
    assert.match(
      refused.out.at(-1) ?? "",
      /^Stopped: the agent refused to start with these settings \(.*root\/sudo.*\)\. .*IS_SANDBOX=1/,
      refused.out.join("\n"),
    );
    assert.equal(await handoffs(m!), 0);
  });

  it("a kill mid-stream: the next Run resumes the interrupted Stage's session and merges", async () => {
    cw = await claudeWorld({ config: { lanes: 1, agent: { kind: "claude" } } });
    const [n] = await cw.world.tickets([cw.world.ticket("greet")]);
    cw.model.faults.add({ ticket: n, stage: "implement", step: 1, answer: "hold" });
    const killed = cw.world.cli(["run"], { host: cw.host });
    await waitFor(() => cw!.model.requests().some((r) => r.answer === "hold"), { timeoutMs: RUN_MS, what: "the agent to be mid-stream" });
    // The session is noted in this Host's local claim as the agent names it (ADR 0452), which can
    // finish after the model is asked; the kill this case is about comes once it is there.
    await waitFor(async () => (await cw!.world.notedSessions(cw!.host, n!))?.implement ?? null, {
      timeoutMs: 60_000,
      what: "the local claim to name the implement Stage's session",
    });
    // The Host goes down: the Run and its agent die together.
    const lanes = join(cw.world.target.clone, ".worktrees");
    killed.child.kill("SIGKILL");
    for (const pid of processesUnder(lanes)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone: in the sandbox (ADR 0290) the agent dies with the Run
      }
    }
    await killed.exited;
    cw.model.releaseHolds();
    await waitFor(() => processesUnder(lanes).length === 0 || null, { timeoutMs: 30_000, what: "the agent to be gone" });
    const before = stageRequests(cw.model, n!, "implement");

    const again = await cw.world.cliDone(["run"], { host: cw.host, timeoutMs: RUN_MS });
    assert.equal(again.code, 0, `\n${again.out.join("\n")}\n${again.err.join("\n")}`);
    assert.equal((await cw.world.issue(n!)).state, "closed");
    const resumed = stageRequests(cw.model, n!, "implement").slice(before.length);
    assert.ok(
      resumed.length > 0 && resumed.every((r) => r.session === before[0]!.session && r.step >= 1),
      `resumed: ${JSON.stringify(resumed.map((r) => [r.session, r.step]))}`,
    );
  });
});
