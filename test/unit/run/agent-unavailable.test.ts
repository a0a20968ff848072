import { strict as assert } from "node:assert";
import { HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import { OUTCOME_FAULT } from "../../../src/core/run/agent-faults";
import { stagePermissions } from "../../../src/core/run/stage-permissions";
import type { AgentScript } from "../../fakes/fake-agent-runner";
import { FakeHost, World } from "./world";

const overloaded: AgentScript = () => ({
  outcome: "unavailable",
  unavailable: "provider-down",
  detail: "API Error: Repeated 529 Overloaded errors",
  structured: undefined,
});

describe("Run: the agent unavailable (ADR-0141)", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("whose fault each outcome is, as data", () => {
    assert.equal(OUTCOME_FAULT.unavailable, "environment");
    assert.equal(OUTCOME_FAULT["rate-limited"], "limit");
    assert.equal(OUTCOME_FAULT["turn-capped"], "ticket");
  });

  it("a 529 outage with three tickets queued: one released with its work kept, none handed off, the Run stopped with what to do", async () => {
    const tickets = [w.ticket("One"), w.ticket("Two"), w.ticket("Three")];
    w.agent.on("*", "implement", overloaded, { repeat: true });
    const summary = await w.run().start();

    assert.equal(summary.rows.filter((r) => r.ending === "handed-off").length, 0);
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["released"],
      "only the ticket it held; nothing more was taken",
    );
    assert.equal(summary.exitCode, 1);
    assert.match(
      summary.lines.at(-1)!,
      /^Stopped: the model provider is down or unreachable \(.*529.*\)\. Nothing was handed off.*then run `ticket-runner run` again\.$/,
    );
    for (const n of tickets) {
      assert.deepEqual(w.issue(n).labels, ["ready-for-agent"], `#${n} is back on the Frontier`);
      assert.equal(w.comments(n).filter((c) => c.body.startsWith(HANDOFF_MARKER)).length, 0);
    }
    assert.equal(w.agent.count(tickets[1]!), 0);
    assert.equal(w.state(tickets[0]!)!.state, "claimed", "the State is kept for the resume");
  });

  it("passes each Stage exactly its git commands and the Checks", async () => {
    w.ticket("One");
    await w.run().start();
    const implement = w.agent.calls.find((c) => c.stage === "implement")!;
    const verify = w.agent.calls.find((c) => c.stage === "verify")!;
    assert.deepEqual(implement.allowedCommands, stagePermissions("implement", { checks: w.config.checks ?? [] }));
    assert.ok(implement.allowedCommands!.some((c) => c.join(" ") === "git commit"));
    assert.ok(!implement.allowedCommands!.some((c) => c[1] === "push"), "never a push");
    assert.ok(!verify.allowedCommands!.some((c) => c.join(" ") === "git commit"), "verify commits nothing");
    for (const check of w.config.checks ?? []) assert.ok(verify.allowedCommands!.some((c) => c.join("\0") === check.join("\0")));
  });

  it("a hand-off for no commits names the commands the agent was refused", async () => {
    const n = w.ticket("One");
    w.agent.on(n, "implement", () => ({ structured: { title: "t", summary: "s" }, permissionDenials: ["Bash: git commit -m 'Add it'"] }));
    await w.run().start();
    const handoff = w.comments(n).find((c) => c.body.startsWith(HANDOFF_MARKER))!;
    assert.match(handoff.body, /left no commits on the branch; the agent was refused "Bash: git commit -m 'Add it'"/);
  });

  it("a rate limit's reset time is in the release line and the closing line", async () => {
    const n = w.ticket("One");
    w.agent.on(n, "implement", () => ({
      outcome: "rate-limited",
      limitResetsAt: "2026-12-03T22:13:00.000Z",
      limitName: "weekly limit",
      structured: undefined,
    }));
    const summary = await w.run().start();
    assert.match(summary.rows[0]!.line, /resets 2026-12-03 22:13 UTC/);
    assert.equal(summary.lines.at(-1), "Rate limited: the limit resets 2026-12-03 22:13 UTC; run `ticket-runner run` again then.");
  });

  it("an interrupted Stage continues its session on the resume; a failed resume falls back to a fresh one", async () => {
    const n = w.ticket("One");
    w.agent.on(n, "implement", () => ({ outcome: "rate-limited", sessionId: "sess-1", structured: undefined }));
    await w.run().start();
    assert.deepEqual(w.state(n)!.sessions, { implement: "sess-1" });

    w.agent.on(n, "implement", () => ({ outcome: "nonzero-exit", resumeFailed: true, structured: undefined }));
    const again = await w.run().start();
    const implementCalls = w.agent.calls.filter((c) => c.stage === "implement");
    assert.equal(implementCalls[1]!.resumeSession, "sess-1");
    assert.equal(implementCalls[2]!.resumeSession, undefined, "the fresh session after the failed resume");
    assert.equal(again.rows[0]!.ending, "merged");
  });

  it("a session another Host holds is not asked for: the Stage starts afresh and the log says so (ADR 0250)", async () => {
    const n = w.ticket("One");
    w.agent.on(n, "implement", () => ({ outcome: "rate-limited", sessionId: "sess-1", structured: undefined }));
    await w.run().start();
    assert.deepEqual(w.state(n)!.sessionsOn, { id: "host-a", name: "desk" }, "the State names the Host that holds the session");

    const elsewhere = new FakeHost({ id: "host-b", name: "laptop", kind: "workstation" });
    const again = await w.run({}, { host: elsewhere }).start();
    const implementCalls = w.agent.calls.filter((c) => c.stage === "implement");
    assert.equal(implementCalls.length, 2, "no attempt to resume, then a fresh one: one fresh start");
    assert.equal(implementCalls[1]!.resumeSession, undefined);
    assert.ok(
      w.log.has(
        `#${n}: the agent session(s) it was interrupted in (implement sess-1) live on Host desk, not on this one (laptop); those Stages start a fresh session here`,
      ),
      w.log.lines.join("\n"),
    );
    assert.equal(again.rows[0]!.ending, "merged", again.rows[0]!.line);
  });
});
