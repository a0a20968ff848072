/**
 * The real Codex CLI (0.171.0) and Gemini CLI (0.61.0), pinned by scripts/install-agents.sh, through
 * whole Runs (`ticket-runner run`, dist/cli.js) on the sandbox, each against the scripted model
 * server of its provider's API: every way the agent is unavailable (a bad key, the binary missing,
 * the provider down) stops the Run with nothing handed off and releases what it held with its work
 * kept; a kill mid-Stage is resumed by the next Run in the agent's own session (`codex exec resume`,
 * `gemini --resume`); Codex's turn cap is the ticket's. Nothing sleeps: every wait polls a condition.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import type { ScriptedRequestRecord } from "../../../src/sandbox/model-server/scripted-http";
import { waitFor } from "../../support/wait-for";
import { processesUnder, stageRequests } from "./claude-world";
import { cliAgentWorld } from "./cli-agent-world";
import type { CliAgentKind, CliAgentWorld } from "./cli-agent-world";

const RUN_MS = 300_000;

/** How the agent's command line names the session a Stage starts (Gemini) and the one it resumes. */
const SESSION_ARGS: Record<CliAgentKind, { fresh: RegExp | null; resumed: RegExp }> = {
  codex: { fresh: null, resumed: /\bexec resume\b.* '?([0-9a-f-]{36})'? /s },
  gemini: { fresh: /--session-id '?([0-9a-f-]{36})'?/, resumed: /--resume '?([0-9a-f-]{36})'?/ },
};

for (const kind of ["codex", "gemini"] as const) {
  describe(`the real ${kind} CLI through whole Runs on the sandbox`, function () {
    this.timeout(600_000);
    let aw: CliAgentWorld | null = null;
    afterEach(async () => {
      await aw?.dispose();
      aw = null;
    });

    async function handoffs(n: number): Promise<number> {
      return (await aw!.world.comments(n)).filter((c) => c.body.startsWith(HANDOFF_MARKER)).length;
    }

    /** Each `implement` command line a Run wrote for the ticket in a clone, in Run order. */
    function implementCommands(n: number, clone = aw!.world.target.clone): string[] {
      return Object.entries(aw!.world.stageLogs(clone, n)).flatMap(([runId, stems]) =>
        stems.filter((s) => s === "implement").map((s) => readFileSync(join(clone, ".ticket-runner", "runs", runId, String(n), `${s}.command`), "utf8")),
      );
    }

    for (const c of [
      {
        name: "with a key the provider refuses",
        fault: { answer: "unauthorized" as const, times: 0 },
        line: /^Stopped: the agent is not signed in on this Host \(.+\)\. Nothing was handed off; .*Sign the agent in/,
      },
      {
        name: "missing from the PATH",
        onPath: false,
        line: /^Stopped: the agent's executable is not installed on this Host \(.+\)\. Nothing was handed off; .*Install the agent/,
      },
    ]) {
      it(`the agent ${c.name}: the Run stops with what to do, takes no second ticket, hands nothing off`, async () => {
        aw = await cliAgentWorld(kind, { onPath: c.onPath ?? true });
        const tickets = await aw.world.tickets([aw.world.ticket("one"), aw.world.ticket("two")]);
        if (c.fault) aw.model.faults.add(c.fault);
        const run = await aw.world.cliDone(["run"], { host: aw.host, timeoutMs: RUN_MS });
        const text = `${run.out.join("\n")}\n${run.err.join("\n")}`;
        assert.equal(run.code, 1, text);
        assert.match(run.out.at(-1) ?? "", c.line, text);
        assert.doesNotMatch(run.out.join("\n"), /^\s+#\d+\s+handed off/m, text);
        for (const n of tickets) {
          assert.deepEqual((await aw.world.issue(n)).labelNames, ["ready-for-agent"], `#${n} back on the Frontier`);
          assert.equal(await handoffs(n), 0);
        }
        assert.ok(
          aw.model.requests().every((r) => r.ticket !== tickets[1]),
          "the Run took no second ticket",
        );
        assert.deepEqual(aw.world.agentCalls(aw.world.target.clone, tickets[1]!), []);
      });
    }

    it("the provider down after the agent committed: released with the commit kept on its branch, the Run stopped, nothing handed off", async () => {
      aw = await cliAgentWorld(kind);
      const tickets = await aw.world.tickets([aw.world.ticket("one"), aw.world.ticket("two")]);
      // Step 0 writes the files, step 1 commits; from the answer on, every request gets a 500.
      aw.model.faults.add({ ticket: tickets[0], stage: "implement", step: 2, answer: "server-error", times: 0 });
      const run = await aw.world.cliDone(["run"], { host: aw.host, timeoutMs: RUN_MS });
      const text = `${run.out.join("\n")}\n${run.err.join("\n")}`;
      assert.equal(run.code, 1, text);
      assert.match(
        run.out.at(-1) ?? "",
        /^Stopped: the model provider is down or unreachable \(.+\)\. Nothing was handed off; the tickets it held were released with their work kept\./,
        text,
      );
      for (const n of tickets) {
        assert.deepEqual((await aw.world.issue(n)).labelNames, ["ready-for-agent"], `#${n} back on the Frontier`);
        assert.equal(await handoffs(n), 0);
      }
      assert.ok(
        aw.model.requests().every((r) => r.ticket !== tickets[1]),
        "the Run took no second ticket",
      );
      const state = await aw.world.stateOf(tickets[0]!);
      assert.ok(state, "the State record is kept");
      assert.ok((await aw.world.branches()).includes(state.branch), `the ticket's branch ${state.branch} is on the remote: ${text}`);
      assert.equal(await aw.world.fileAt(state.branch, "src/one.js").then((t) => t !== null), true, "the agent's commit was pushed before the release");
    });

    it("a kill mid-Stage: the next Run resumes the agent's own session, which asks the model less than a fresh Stage", async () => {
      aw = await cliAgentWorld(kind);
      // Two tickets of the same shape: #b's implement is a fresh Stage's cost, to set the resume against.
      const [a, b] = await aw.world.tickets([aw.world.ticket("alpha"), aw.world.ticket("bravo")]);
      aw.model.faults.add({ ticket: a, stage: "implement", step: 1, answer: "hold" });
      const killed = aw.world.cli(["run"], { host: aw.host });
      await waitFor(() => aw!.model.requests().some((r) => r.answer === "hold"), { timeoutMs: RUN_MS, what: "the agent to be mid-stream" });
      // The session is noted in this Host's local claim as the agent names it (ADR 0452), which can
      // finish after the model is asked; the kill this case is about comes once it is there.
      const recorded = async () => (await aw!.world.notedSessions(aw!.host, a!))?.implement ?? null;
      await waitFor(recorded, { timeoutMs: 60_000, what: "the local claim to name the implement Stage's session" });
      // The Host goes down: the Run and its agent die together.
      const lanes = join(aw.world.target.clone, ".worktrees");
      killed.child.kill("SIGKILL");
      for (const pid of processesUnder(lanes)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone: in the sandbox (ADR 0290) the agent dies with the Run
        }
      }
      await killed.exited;
      aw.model.releaseHolds();
      await waitFor(() => processesUnder(lanes).length === 0 || null, { timeoutMs: 30_000, what: "the agent to be gone" });
      const before = stageRequests(aw.model, a!, "implement");
      const stored = await recorded();
      assert.ok(stored, "the local claim keeps the interrupted Stage's session");

      const again = await aw.world.cliDone(["run"], { host: aw.host, timeoutMs: RUN_MS });
      const text = `\n${again.out.join("\n")}\n${again.err.join("\n")}`;
      assert.equal(again.code, 0, text);
      for (const n of [a!, b!]) assert.equal((await aw.world.issue(n)).state, "closed", `#${n}${text}`);

      // The stored session reached the binary's command line.
      const commands = implementCommands(a!);
      assert.equal(commands.length, 2, commands.join("\n"));
      const { fresh, resumed } = SESSION_ARGS[kind];
      if (fresh) assert.equal(fresh.exec(commands[0]!)?.[1], stored, commands[0]);
      assert.equal(resumed.exec(commands[1]!)?.[1], stored, commands[1]);
      // The model saw the resumed session carry on past the interrupted step, never from the start.
      const after = stageRequests(aw.model, a!, "implement")
        .slice(before.length)
        .filter((r) => r.answer === "message");
      assert.ok(after.length > 0 && after.every((r) => r.step >= 1), `resumed steps: ${after.map((r) => r.step).join(",")}`);
      if (kind === "codex")
        assert.ok(
          after.every((r) => r.session === before[0]!.session),
          "Codex sent the interrupted session's id",
        );
      const freshStage = stageRequests(aw.model, b!, "implement").filter((r: ScriptedRequestRecord) => r.answer === "message");
      assert.ok(after.length < freshStage.length, `the resume asked ${after.length} time(s), a fresh implement ${freshStage.length}`);
    });

    if (kind === "codex") {
      it("released on one Host, taken up on another: the session stays behind, so the Stage starts afresh there and the log says so (ADR 0250)", async () => {
        aw = await cliAgentWorld(kind);
        const [n] = await aw.world.tickets([aw.world.ticket("alpha")]);
        aw.model.faults.add({ ticket: n, stage: "implement", step: 1, answer: "rate-limit" });
        const first = await aw.world.cliDone(["run"], { host: aw.host, timeoutMs: RUN_MS });
        assert.match(first.out.join("\n"), /released\s+rate limited at implement/, first.out.join("\n"));
        const state = (await aw.world.stateOf(n!)) as { sessions?: Record<string, string>; sessionsOn?: { id: string; name: string } } | null;
        const session = state?.sessions?.implement;
        assert.ok(session, "the interrupted session is kept");
        assert.equal(state?.sessionsOn?.name, kind, "with the Host that holds it");
        const asked = aw.model.requests().length;

        const other = await aw.otherHost("laptop");
        const second = await aw.world.cliDone(["run"], { host: other.host, cwd: other.clone, timeoutMs: RUN_MS });
        const text = `${second.out.join("\n")}\n${second.err.join("\n")}`;
        assert.equal(second.code, 0, text);
        assert.equal((await aw.world.issue(n!)).state, "closed", text);
        assert.ok(
          text.includes(
            `#${n}: the agent session(s) it was interrupted in (implement ${session}) live on Host ${kind}, not on this one (laptop); those Stages start a fresh session here`,
          ),
          text,
        );
        const [command] = implementCommands(n!, other.clone);
        assert.ok(command && !/\bexec resume\b/.test(command) && !command.includes(session), `a fresh session, not a resume: ${command}`);
        const there = aw.model
          .requests()
          .slice(asked)
          .filter((r) => r.ticket === n && r.stage === "implement");
        assert.ok(there.length > 0 && there[0]!.step === 0 && there.every((r) => r.session !== session), "the Stage started over in a session of its own");
      });

      it("a turn cap reached mid-Stage is the ticket's: handed off saying so", async () => {
        aw = await cliAgentWorld(kind, { agent: { maxTurns: 1 } });
        const [n] = await aw.world.tickets([aw.world.ticket("one")]);
        const run = await aw.world.cliDone(["run"], { host: aw.host, timeoutMs: RUN_MS });
        const text = `${run.out.join("\n")}\n${run.err.join("\n")}`;
        assert.equal(run.code, 1, text);
        assert.match(run.out.join("\n"), new RegExp(`^\\s+#${n}\\s+handed off\\s+at implement: .*turn`, "m"), text);
        assert.deepEqual((await aw.world.issue(n!)).labelNames, ["ready-for-human"]);
        assert.equal(await handoffs(n!), 1);
      });
    }
  });
}
