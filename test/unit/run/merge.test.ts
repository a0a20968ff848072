import { strict as assert } from "node:assert";
import { PROGRESS_MARKER } from "../../../src/core/run/progress-comment";
import { World } from "./world";

describe("Run: a green ticket merges", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("takes the ticket through every Stage and cleans up after the merge", async () => {
    const n = w.ticket("Spin the widget");
    const summary = await w.run().start();

    assert.equal(summary.exitCode, 0);
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [[n, "merged"]],
    );
    assert.match(summary.lines.at(-1)!, /^Done: 1 merged\.$/);

    const pr = w.pulls()[0]!;
    assert.equal(pr.merged, true);
    assert.equal(pr.title, `feat: ticket ${n}`, "the title comes from the implement Stage's answer");
    assert.match(pr.body, new RegExp(`^Closes #${n}`));
    assert.match(pr.body, /the widget spins \| ✅ met/);

    const issue = w.issue(n);
    assert.equal(issue.state, "closed");
    assert.ok(!issue.labels.includes("in-progress"));
    assert.match(issue.body, /- \[x\] the widget spins\n- \[x\] the widget stops/, "met criteria are ticked");

    assert.equal(w.state(n), null, "the State file goes with the merge");
    assert.equal(w.ws.lanes.size, 0, "the worktree goes");
    assert.ok(![...w.remote.branches.keys()].some((b) => b.startsWith(`agent/${n}-`)), "the remote branch goes");
    assert.deepEqual(w.remote.lock, { held: false }, "the lock is released");

    assert.deepEqual(
      w.agent.calls.map((c) => c.stage),
      ["implement", "verify"],
    );
    assert.ok(w.agent.calls.every((c) => c.env?.TICKET_RUNNER_STAGE === c.stage));
  });

  it("writes the State file before the claim, then implemented, then the pull request, then removes it", async () => {
    const n = w.ticket("Spin the widget");
    const order: string[] = [];
    const realClaim = w.gate.claim.bind(w.gate);
    w.gate.claim = async (t) => {
      order.push(`claim with state=${w.state(t)?.state ?? "none"}`);
      return realClaim(t);
    };
    await w.run().start();
    assert.deepEqual(order, ["claim with state=claimed"]);
    const seq = w.remote.stateWrites
      .filter((s) => s.ticket === n)
      .map((s) => (s.value ? `${s.value.state}/pr=${s.value.pullRequest ?? "-"}/sessions=${Object.keys(s.value.sessions ?? {}).join("+") || "-"}` : "removed"));
    // Each Stage's session is noted in this Host's local claim as the agent names it, not in a State
    // write of its own (ADR 0452); a finished Stage's session is dropped there too.
    assert.deepEqual(seq, ["claimed/pr=-/sessions=-", "implemented/pr=-/sessions=-", "implemented/pr=" + w.pulls()[0]!.number + "/sessions=-", "removed"]);
    assert.deepEqual(w.gate.noted.get(n)?.stages, {}, "both Stages' sessions were noted, then dropped as each Stage finished");
  });

  it("sends the implemented record in the branch's push after the implement Stage, and writes it only once (ADR 0433)", async () => {
    const n = w.ticket("Spin the widget");
    await w.run().start();
    assert.ok(
      w.ws.calls.some((c) => c.startsWith(`State ${n} implemented with agent/${n}-`)),
      w.ws.calls.join("\n"),
    );
    const implemented = w.remote.stateWrites.filter((s) => s.ticket === n && s.value?.state === "implemented" && !s.value.pullRequest && !s.value.sessions);
    assert.equal(implemented.length, 1);
    assert.equal(implemented[0]!.value!.title, w.remote.stateWrites.find((s) => s.ticket === n && s.value?.pullRequest)!.value!.title);
  });

  it("writes the implemented record on its own when the push could not take it", async () => {
    const n = w.ticket("Spin the widget");
    w.ws.script.recordWithPush = false;
    await w.run().start();
    assert.ok(!w.ws.calls.some((c) => c.startsWith(`State ${n} implemented with`)));
    const implemented = w.remote.stateWrites.filter((s) => s.ticket === n && s.value?.state === "implemented" && !s.value.pullRequest && !s.value.sessions);
    assert.equal(implemented.length, 1);
  });

  it("removes the State record with the merged branch, in the clean-up, and only once (ADR 0431)", async () => {
    const n = w.ticket("Spin the widget");
    await w.run().start();
    assert.ok(
      w.ws.calls.some((c) => c.startsWith(`State ${n} removed with agent/${n}-`)),
      w.ws.calls.join("\n"),
    );
    assert.equal(w.remote.stateWrites.filter((s) => s.ticket === n && s.value === null).length, 1);
    assert.equal(w.state(n), null);
  });

  it("removes the State record on its own when the clean-up could not take it with the branch", async () => {
    const n = w.ticket("Spin the widget");
    w.ws.script.stateWithBranch = false;
    await w.run().start();
    assert.ok(!w.ws.calls.some((c) => c.startsWith(`State ${n} removed with`)));
    assert.equal(w.remote.stateWrites.filter((s) => s.ticket === n && s.value === null).length, 1);
    assert.equal(w.state(n), null);
  });

  it("keeps one progress comment with one row per Stage", async () => {
    const n = w.ticket("Spin the widget");
    await w.run().start();
    const progress = w.comments(n).filter((c) => c.body.startsWith(PROGRESS_MARKER));
    assert.equal(progress.length, 1);
    const rows = progress[0]!.body.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Stage"));
    assert.deepEqual(
      rows.map((r) => r.split("|")[1]!.trim()),
      ["implement", "checks", "verify", "rebase", "pr", "ci", "merge"],
    );
    assert.match(rows[0]!, /\| implement \| ✅ done \| 3 \| 1 s \|/);
  });

  it("writes the progress comment in three batches for a clean ticket: before verify, before the CI wait, at the merge", async () => {
    const n = w.ticket("Spin the widget");
    const bodies: string[] = [];
    const tracker = w.gh.client("bot");
    const create = tracker.createComment.bind(tracker);
    const update = tracker.updateComment.bind(tracker);
    tracker.createComment = async (issue, body) => {
      if (body.startsWith(PROGRESS_MARKER)) bodies.push("createComment");
      return create(issue, body);
    };
    tracker.updateComment = async (id, body) => {
      if (body.startsWith(PROGRESS_MARKER)) bodies.push("updateComment");
      return update(id, body);
    };
    await w.run({}, { tracker }).start();
    assert.deepEqual(bodies, ["createComment", "updateComment", "updateComment"], "one create and two edits, not one write per Stage");
    const progress = w.comments(n).find((c) => c.body.startsWith(PROGRESS_MARKER))!;
    assert.equal(progress.body.split("\n").filter((l) => /^\| [a-z]+ \|/.test(l)).length, 7, "every Stage's row is there in the end");
  });

  it("merges guarded by the head sha, squash by default", async () => {
    w.ticket("Spin the widget");
    const merges: unknown[] = [];
    const tracker = w.gh.client("bot");
    const real = tracker.mergePullRequest.bind(tracker);
    tracker.mergePullRequest = async (num, input) => {
      merges.push(input);
      return real(num, input);
    };
    await w.run({}, { tracker }).start();
    const input = merges[0] as { sha: string; method: string };
    assert.equal(input.method, "squash");
    assert.match(input.sha, /^impl\d+'?$/);
  });

  it("gives each lease checkpoint the Stage that runs, and emits a typed event stream", async () => {
    const n = w.ticket("Spin the widget");
    const run = w.run();
    const kinds: string[] = [];
    run.events.subscribe((e) => kinds.push(e.kind === "stage-ended" ? `${e.kind}:${e.stage}` : e.kind));
    await run.start();
    assert.ok(w.gate.calls.includes(`markStage #${n} implement`));
    assert.ok(w.gate.calls.includes(`markStage #${n} verify`));
    assert.equal(kinds[0], "run-started");
    assert.equal(kinds[1], "lane-started");
    assert.ok(kinds.includes("transcript"));
    assert.ok(kinds.includes("stage-ended:merge"));
    assert.deepEqual(kinds.slice(-2), ["ticket-ended", "run-ended"]);
  });
});
