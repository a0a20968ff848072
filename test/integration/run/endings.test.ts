import { strict as assert } from "node:assert";
import { HANDOFF_HISTORY, HANDOFF_MARKER, transcriptsWhere } from "../../../src/core/run/handoff-comment";
import { stateRecordRef } from "../../../src/core/schemas/state-file";
import { PROGRESS_MARKER } from "../../../src/core/run/progress-comment";
import type { DemoTicket } from "../../support/run-seed";
import { RunWorld } from "./run-helpers";

const say = (r: { out: string[]; err: string[] }) => `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;

/** A criterion the files never meet: verify grades it unmet, and a fix cannot help. */
function neverMet(): DemoTicket {
  return {
    title: "Add the shout helper",
    criteria: [
      ["`src/shout.js` exports `shout`", "src/shout.js", "function shout"],
      ["the README documents `shout`", "README.md", "shout(text)"],
    ],
    files: { "src/shout.js": "function shout(t) {\n  return String(t).toUpperCase();\n}\n\nmodule.exports = { shout };\n" },
    behaviours: ["unmet-criteria"],
  };
}

describe("run (integration): the endings", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("hand-off after a spent fix budget: draft PR, State kept unspent, transcripts on the state branch, comment, relabel", async () => {
    w = await RunWorld.make();
    const [n] = await w.tickets([neverMet()]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 1, say(r));
    const runId = Object.keys(w.stageLogs(w.target.clone, n!))[0]!;
    assert.deepEqual(w.agentCalls(w.target.clone, n!), ["fix", "implement", "retry/verify-2", "verify"]);

    const issue = await w.issue(n!);
    assert.deepEqual(issue.labelNames, ["ready-for-human"]);
    assert.deepEqual(issue.assigneeLogins, []);
    const [pr] = await w.pulls();
    assert.equal(pr!.draft, true);
    assert.equal(pr!.title, "Add the shout helper");
    assert.match(pr!.body ?? "", new RegExp(`ticket-${n}/${runId}/`));

    const state = await w.stateOf(n!);
    assert.equal(state!.state, "implemented");
    assert.equal(state!.fixUsed, false);
    assert.equal(state!.pullRequest, pr!.number);
    const kept = await w.listDir(stateRecordRef(n!), `ticket-${n}/${runId}`);
    assert.ok(
      kept?.includes("implement.command") && kept.includes("verify.transcript.jsonl") && kept.includes("version.txt") && kept.includes("retry"),
      `kept: ${kept}`,
    );

    const handoff = (await w.comments(n!)).find((c) => c.body.startsWith(HANDOFF_MARKER))!;
    assert.match(handoff.body, /^\*\*Handed off\.\*\* Failed at \*\*verify\*\*, after the fix budget was used\.$/m);
    assert.match(handoff.body, /- Failure: 1 of 2 criteria unmet/);
    assert.match(handoff.body, new RegExp(`- Branch \`agent/${n}-[a-z0-9-]+\` on the remote · worktree \`[^\`]+ticket-${n}\` · PR #${pr!.number} \\(draft\\)`));
    assert.ok(handoff.body.includes(`- Transcripts: ${transcriptsWhere(n!, `ticket-${n}/${runId}/`)}`), handoff.body);
    assert.deepEqual(await w.lock(), { held: false });
  });

  it("release on a rate limit, then a later Run resumes it without running implement again", async () => {
    w = await RunWorld.make();
    const [n] = await w.tickets([w.ticket("wave", ["rate-limit-once:verify"])]);
    const first = await w.cliDone(["run"]);
    assert.equal(first.code, 0, say(first));
    // The demo agent's rejected rate_limit_event says when the limit resets: the closing line names it.
    assert.match(first.out.at(-1) ?? "", /^Rate limited: the limit resets \d{4}-\d\d-\d\d \d\d:\d\d UTC; run `ticket-runner run` again then\.$/);
    const issue = await w.issue(n!);
    assert.deepEqual(issue.labelNames, ["ready-for-agent"]);
    assert.deepEqual(issue.assigneeLogins, []);
    assert.equal(
      (await w.comments(n!)).filter((c) => !c.body.startsWith(PROGRESS_MARKER) && !c.body.startsWith("<!-- ticket-runner:lease")).length,
      0,
      "no comment",
    );
    assert.deepEqual(await w.pulls(), []);
    assert.equal((await w.stateOf(n!))!.state, "implemented");
    assert.match((await w.comments(n!)).find((c) => c.body.startsWith(PROGRESS_MARKER))!.body, /\| verify \| ⏸ rate limited \|/);
    // The released lease keeps the reset time, and the board names it (the same time the Run's closing line said).
    const resets = /resets (\d{4}-\d\d-\d\d \d\d:\d\d UTC)/.exec(first.out.at(-1) ?? "")![1]!;
    const leaseBody = (await w.comments(n!)).find((c) => c.body.startsWith("<!-- ticket-runner:lease"))!.body;
    assert.match(leaseBody, new RegExp(`A rate limit stopped it; it resets ${resets}\\.`));
    assert.match(leaseBody, /"limitResetsAt":\s*"\d{4}-/);
    const board = await w.cliDone(["board"]);
    assert.ok(
      board.out.some((l) => new RegExp(`^ {2}#${n} .*released \\S+ ago · \\S+ · limit resets ${resets}$`).test(l)),
      say(board),
    );

    const second = await w.cliDone(["run"]);
    assert.equal(second.code, 0, say(second));
    assert.equal((await w.issue(n!)).state, "closed");
    const runs = Object.values(w.stageLogs(w.target.clone, n!));
    assert.deepEqual(runs, [["implement", "verify"], ["verify"]], "implement paid for once; four agent invocations became three");
  });

  it("hand-off, a person's relabel, then a merge: the draft leaves draft, old comments become history", async () => {
    w = await RunWorld.make();
    const repo = `${w.target.owner}/${w.target.repo}`;
    await w.sandbox.admin.scriptCi(repo, { conclusion: "failure" });
    const [n] = await w.tickets([w.ticket("hop")]);
    const first = await w.cliDone(["run"]);
    assert.equal(first.code, 1, say(first));
    assert.match(first.out.join("\n"), /handed-off: at ci: CI failed \(after the fix budget was used\)/);
    const oldProgress = (await w.comments(n!)).find((c) => c.body.startsWith(PROGRESS_MARKER))!;
    assert.equal((await w.pulls())[0]!.draft, true);
    assert.equal((await w.stateOf(n!))!.fixUsed, false, "the hand-off leaves a fresh budget for after the person");

    await w.sandbox.admin.scriptCi(repo, null);
    await w.relabel(n!, "ready-for-human", "ready-for-agent");
    const second = await w.cliDone(["run"]);
    assert.equal(second.code, 0, say(second));
    const [pr] = await w.pulls();
    assert.ok(pr!.merged_at, "the same pull request merged");
    assert.equal((await w.pulls()).length, 1);
    const comments = await w.comments(n!);
    const handoff = comments.find((c) => c.body.startsWith(HANDOFF_MARKER))!;
    assert.equal(handoff.body.split("\n")[1], HANDOFF_HISTORY);
    const progress = comments.filter((c) => c.body.startsWith(PROGRESS_MARKER));
    assert.equal(progress.length, 2, "a new progress comment");
    assert.equal(progress[0]!.body, oldProgress.body, "the one the person read is left as they read it");
    assert.deepEqual(
      Object.values(w.stageLogs(w.target.clone, n!)).map((stages) => stages.includes("implement")),
      [true, false],
    );
  });

  it("an agent that crashes fails its Stage with a clear kind; the Run goes on to the next ticket", async () => {
    w = await RunWorld.make();
    const marker = `${w.scratch}/pwned`;
    const [a, b] = await w.tickets([{ ...w.ticket("crash", ["crash:implement"]), title: `Crash $(touch ${marker}) \`touch ${marker}\`` }, w.ticket("fine")]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 1, say(r));
    assert.match(r.out.join("\n"), new RegExp(`#${a} handed-off: at implement: the implement Stage's agent exited with an error`));
    assert.match(r.out.join("\n"), new RegExp(`#${b} merged`));
    const { existsSync } = await import("node:fs");
    assert.equal(existsSync(marker), false, "nothing built from issue text ever reaches a shell");
  });
});
