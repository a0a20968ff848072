import { strict as assert } from "node:assert";
import { HANDOFF_MARKER, transcriptsWhere } from "../../../src/core/run/handoff-comment";
import { unmetFirst } from "../../fakes/fake-agent-runner";
import { World, spy } from "./world";

describe("Run: Hand-off", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  const handoffs = (n: number) => w.comments(n).filter((c) => c.body.startsWith(HANDOFF_MARKER));

  it("after a spent fix budget: draft PR, State kept unspent, transcripts, body names them, comment, relabel - in that order", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst).on(n, "verify", unmetFirst);
    const journal: string[] = [];
    const tracker = spy(w.gh.client("bot"), "tracker", ["createPullRequest", "setDraft", "updatePullRequest", "createComment"], journal);
    spy(w.ws, "ws", ["writeState", "keepTranscripts"], journal);
    spy(w.gate, "gate", ["handOff"], journal);
    const run = w.run({}, { tracker });
    const summary = await run.start();

    assert.equal(summary.exitCode, 1);
    assert.equal(summary.rows[0]!.ending, "handed-off");
    assert.deepEqual(
      w.agent.calls.map((c) => c.logName),
      ["implement", "verify", "fix", "retry/verify-2"],
    );
    const tail = journal.slice(journal.lastIndexOf("ws.writeState") - 1);
    assert.deepEqual(tail, [
      "tracker.createPullRequest",
      "ws.writeState",
      "ws.keepTranscripts",
      "tracker.updatePullRequest",
      "tracker.createComment",
      "gate.handOff",
    ]);

    const pr = w.pulls()[0]!;
    assert.equal(pr.draft, true);
    assert.equal(pr.title, "Spin the widget", "a hand-off draft opens under the Ticket's title");
    assert.match(pr.body, new RegExp(`ticket-${n}/${run.runId}/`));

    const state = w.state(n)!;
    assert.equal(state.state, "implemented");
    assert.equal(state.fixUsed, false, "a Hand-off records the Fix budget unspent");
    assert.equal(state.pullRequest, pr.number);

    const kept = w.remote.transcripts.get(`ticket-${n}/${run.runId}/`)!;
    assert.deepEqual(kept, [
      "fix.command",
      "fix.transcript.jsonl",
      "implement.command",
      "implement.transcript.jsonl",
      "retry/verify-2.command",
      "retry/verify-2.transcript.jsonl",
      "verify.command",
      "verify.transcript.jsonl",
      "version.txt",
    ]);

    const issue = w.issue(n);
    assert.deepEqual(issue.labels.sort(), ["ready-for-human"]);
    assert.deepEqual(issue.assignees, []);
  });

  it("writes the hand-off comment the template describes", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst).on(n, "verify", unmetFirst);
    const run = w.run();
    await run.start();
    const [comment] = handoffs(n);
    const lines = comment!.body.split("\n");
    const branch = w.state(n)!.branch;
    assert.equal(lines[0], HANDOFF_MARKER);
    assert.equal(lines[1], "**Handed off.** Failed at **verify**, after the fix budget was used.");
    assert.ok(lines.includes("- Failure: 1 of 2 criteria unmet"));
    assert.ok(lines.includes(`- Branch \`${branch}\` on the remote · worktree \`${w.ws.lanePath(n)}\` · PR #${w.pulls()[0]!.number} (draft)`));
    assert.ok(lines.includes(`- Transcripts: ${transcriptsWhere(n, `ticket-${n}/${run.runId}/`)}`));
    assert.match(comment!.body, /<details><summary>Evidence<\/summary>[\s\S]*not found in src\/[\s\S]*<\/details>$/);
  });

  it("returns an open pull request to draft instead of opening a second one", async () => {
    const n = w.ticket("Spin the widget");
    w.ci = () => ({ state: "failure", details: ["test: failure (2 failed)"] });
    await w.run().start();
    assert.equal(w.pulls().length, 1);
    assert.equal(w.pulls()[0]!.draft, true);
    assert.equal(w.agent.count(n, "fix"), 1, "CI failure is covered once by the fix budget");
    assert.match(handoffs(n)[0]!.body, /Failed at \*\*ci\*\*, after the fix budget was used/);
  });

  it("hands a timed-out Stage off at once, without spending the fix budget", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", () => ({ outcome: "timed-out", detail: "killed after 45 min" }));
    const summary = await w.run().start();
    assert.equal(w.agent.count(n, "fix"), 0);
    assert.match(summary.rows[0]!.line, /did not finish within 45 min/);
    assert.match(handoffs(n)[0]!.body, /^\*\*Handed off\.\*\* Failed at \*\*verify\*\*\.$/m);
  });

  it("an implement Stage that leaves no commits: hand-off with nothing to push and no draft", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "implement", () => ({ structured: { title: "t", summary: "s" } }));
    await w.run().start();
    assert.equal(w.pulls().length, 0);
    const body = handoffs(n)[0]!.body;
    assert.match(body, /the implement Stage left no commits/);
    assert.doesNotMatch(body, /on the remote/, "'on the remote' only when the remote has the branch");
    assert.doesNotMatch(body, /PR #/);
    assert.equal(w.state(n)!.state, "claimed");
  });

  it("a failure to open the draft is logged and never costs the relabel", async () => {
    const n = w.ticket("Spin the widget");
    w.agent.on(n, "verify", unmetFirst).on(n, "verify", unmetFirst);
    const tracker = w.gh.client("bot");
    tracker.createPullRequest = async () => {
      throw new Error("502 from GitHub");
    };
    await w.run({}, { tracker }).start();
    assert.ok(w.log.has("opening a draft pull request failed"));
    assert.ok(w.issue(n).labels.includes("ready-for-human"));
    assert.equal(handoffs(n).length, 1);
  });

  describe("when a Hand-off does less (setup)", () => {
    it("taken from the top, failed before its worktree existed: no draft, State removed", async () => {
      const n = w.ticket("Spin the widget");
      w.ws.fetchBase = async () => {
        throw new Error("could not reach the remote");
      };
      await w.run().start();
      assert.equal(w.pulls().length, 0);
      assert.equal(w.state(n), null);
      assert.match(handoffs(n)[0]!.body, /Failed at \*\*setup\*\*/);
      assert.ok(w.issue(n).labels.includes("ready-for-human"));
    });

    it("taken from the top over a local branch of that name: no draft, State removed, the worktree named", async () => {
      const n = w.ticket("Spin the widget");
      const branch = w.ws.branchFor(n, "Spin the widget");
      w.ws.local.set(branch, ["human1"]);
      w.remote.branches.set(branch, ["human1"]);
      w.gh.live().pulls.push({
        number: 99,
        url: "u",
        state: "open",
        merged: false,
        draft: false,
        head: branch,
        headSha: "human1",
        base: "main",
        title: "a person's PR",
        body: "",
        mergeable: true,
      });
      await w.run().start();
      assert.equal(w.state(n), null, "keeping it would let a later Run resume into a person's work");
      assert.equal(w.pulls().length, 1);
      assert.equal(w.pulls()[0]!.draft, false, "a person's pull request on that branch is left alone");
      const body = handoffs(n)[0]!.body;
      assert.match(body, /git branch -D/);
      assert.match(body, /worktree `/);
      assert.equal(w.agent.calls.length, 0);
    });

    it("resumed, this Host's branch has parted from the remote's: none opened, the open one to draft, State kept", async () => {
      const n = w.ticket("Spin the widget", { labels: ["ready-for-agent"] });
      const branch = w.ws.branchFor(n, "Spin the widget");
      w.ws.local.set(branch, [...w.remote.branches.get("main")!, "mine1"]);
      w.remote.branches.set(branch, [...w.remote.branches.get("main")!, "theirs1"]);
      w.gh.live().pulls.push({
        number: 50,
        url: "u",
        state: "open",
        merged: false,
        draft: false,
        head: branch,
        headSha: "theirs1",
        base: "main",
        title: "t",
        body: "",
        mergeable: true,
      });
      w.remote.states.set(n, {
        ticket: n,
        branch,
        state: "implemented",
        fixUsed: true,
        pullRequest: 50,
        title: "t",
        runId: "old",
        version: "0.1.0",
        updatedAt: "2026-09-17T08:00:00.000Z",
      });
      await w.run().start();
      assert.equal(w.pulls().length, 1);
      assert.equal(w.pulls()[0]!.draft, true);
      assert.equal(w.state(n)!.branch, branch, "both copies are the pipeline's: the State stays");
      const body = handoffs(n)[0]!.body;
      assert.match(body, /parted/);
      assert.match(body, /The Evidence below gives the safe way to make them one, which keeps both copies/);
      assert.doesNotMatch(body.split("Evidence")[0]!, /--force|reset --hard|branch -D/, "one recommended way, named once");
      assert.equal(w.agent.calls.length, 0);
    });
  });

  describe("CI", () => {
    it("no checks after the grace period: hand-off", async () => {
      const n = w.ticket("Spin the widget");
      w.ci = () => ({ state: "none", details: [] });
      await w.run().start();
      assert.match(handoffs(n)[0]!.body, /no CI checks reported within 5 min/);
      assert.match(
        handoffs(n)[0]!.body,
        /a workflow's own GITHUB\\_TOKEN, so a Run in GitHub Actions needs an App token or a personal access token/,
        "the hand-off names the likely cause",
      );
      assert.equal(w.agent.count(n, "fix"), 0, "no checks is not the code's fault: no fix");
    });

    it("no checks with the CI gate off: merges", async () => {
      w.config = { ...w.config, ci: { required: false } };
      const n = w.ticket("Spin the widget");
      w.ci = () => ({ state: "none", details: [] });
      const summary = await w.run().start();
      assert.equal(summary.rows[0]!.ending, "merged");
      assert.equal(w.issue(n).state, "closed");
    });

    it("CI that never finishes: hand-off at its timeout", async () => {
      const n = w.ticket("Spin the widget");
      w.ci = () => ({ state: "pending", details: ["build: queued"] });
      const started = w.clock.now().getTime();
      await w.run().start();
      assert.match(handoffs(n)[0]!.body, /CI did not finish within 60 min/);
      assert.ok(w.clock.now().getTime() - started >= 60 * 60_000);
    });

    it("a conflicting pull request: hand-off at once, budget or not", async () => {
      const n = w.ticket("Spin the widget");
      const tracker = w.gh.client("bot");
      const real = tracker.getPullRequest.bind(tracker);
      tracker.getPullRequest = async (num) => {
        const pr = await real(num);
        return pr ? { ...pr, mergeable: false } : pr;
      };
      await w.run({}, { tracker }).start();
      assert.match(handoffs(n)[0]!.body, /conflicts with main/);
      assert.equal(w.agent.count(n, "fix"), 0);
    });
  });

  it("a merge GitHub refuses is a hand-off at merge", async () => {
    const n = w.ticket("Spin the widget");
    const tracker = w.gh.client("bot");
    tracker.mergePullRequest = async () => ({ merged: false, sha: null, reason: "Head branch was modified" });
    await w.run({}, { tracker }).start();
    assert.match(handoffs(n)[0]!.body, /Failed at \*\*merge\*\*/);
    assert.match(handoffs(n)[0]!.body, /Head branch was modified/);
  });

  it("refills the Lane after a Hand-off", async () => {
    const a = w.ticket("First");
    const b = w.ticket("Second");
    w.agent.on(a, "implement", () => ({ outcome: "nonzero-exit", detail: "exit 1" }));
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [
        [a, "handed-off"],
        [b, "merged"],
      ],
    );
    assert.equal(summary.exitCode, 1);
  });
});
