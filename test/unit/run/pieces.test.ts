import { strict as assert } from "node:assert";
import fc from "fast-check";
import { tickCriteria, uncheckedCriteria } from "../../../src/core/run/criteria";
import { HANDOFF_HISTORY, HANDOFF_MARKER, handoffComment, isCurrentHandoff, markedAsHistory } from "../../../src/core/run/handoff-comment";
import { MergeTrain } from "../../../src/core/run/merge-train";
import { runIdFor, utcClock } from "../../../src/core/run/naming";
import { renderSection, withSection } from "../../../src/core/run/progress-comment";
import { issueBlock } from "../../../src/core/run/prompts";
import { codeAnswerSchema, parseAnswer } from "../../../src/core/run/stage-answers";
import { summarize } from "../../../src/core/run/summary";

describe("Run pieces", () => {
  it("run ids and the stop clock are UTC", () => {
    const at = new Date("2026-09-17T22:07:05.123Z");
    assert.equal(runIdFor(at), "2026-09-17T22-07-05-123");
    assert.equal(utcClock(at), "22:07");
  });

  it("criteria: unticked items outside fences, ticking keeps every other byte", () => {
    const body = "Intro\r\n- [ ] one\r\n* [ ] two  \r\n- [x] done\r\n```\r\n- [ ] fenced\r\n```\r\n  - [ ] nested";
    const c = uncheckedCriteria(body);
    assert.deepEqual(
      c.map((x) => x.text),
      ["one", "two", "nested"],
    );
    const ticked = tickCriteria(body, [c[0]!.line, c[2]!.line]);
    assert.equal(ticked, body.replace("- [ ] one", "- [x] one").replace("  - [ ] nested", "  - [x] nested"));
  });

  it("the issue block survives any title and body as data (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (title, body) => {
        const block = issueBlock({ number: 7, title, body }).split("\n");
        assert.equal(block[0], "<<<ISSUE");
        assert.equal(block[block.length - 1], "ISSUE>>>");
        assert.equal(block.filter((l) => l === "ISSUE>>>" || l === "<<<ISSUE").length, 2);
      }),
    );
  });

  it("progress sections: this Run's is replaced in place, other Runs' kept byte for byte", () => {
    const one = renderSection("r1", "desk", [{ stage: "implement", outcome: "⏸ rate limited", turns: 4, durationMs: 65_000 }]);
    let body = withSection("<!-- ticket-runner:progress -->\nhead", "r1", one);
    body = withSection(body, "r2", renderSection("r2", "vm", [{ stage: "checks", outcome: "✅", turns: null, durationMs: 1000 }]));
    const again = withSection(body, "r1", renderSection("r1", "desk", [{ stage: "implement", outcome: "x | y", turns: 4, durationMs: 1 }]));
    assert.ok(again.includes(renderSection("r2", "vm", [{ stage: "checks", outcome: "✅", turns: null, durationMs: 1000 }])));
    assert.match(again, /\| implement \| x \\\| y \| 4 \| 1 ms \|/);
    assert.ok(again.indexOf("r1") < again.indexOf("r2"));
    assert.match(one, /\| implement \| ⏸ rate limited \| 4 \| 1m 05s \|/);
  });

  it("hand-off comment: each part dropped when there is nothing to name", () => {
    const body = handoffComment({
      ticket: 1,
      stage: "setup",
      fixBudgetUsed: false,
      line: "could not fetch main",
      branch: "agent/3-x",
      remoteHasBranch: false,
      worktree: null,
      pullRequest: null,
      transcripts: null,
      evidence: "",
    });
    assert.equal(
      body.split("\n").slice(0, 5).join("\n"),
      `${HANDOFF_MARKER}\n**Handed off.** Failed at **setup**.\n\n- Failure: could not fetch main\n- Branch \`agent/3-x\``,
    );
    assert.doesNotMatch(body, /Transcripts|Evidence|worktree|PR #/);
  });

  it("hand-off comment: evidence with backticks cannot close its fence", () => {
    const body = handoffComment({
      ticket: 1,
      stage: "checks",
      fixBudgetUsed: true,
      line: "x",
      branch: "b",
      remoteHasBranch: true,
      worktree: "/w",
      pullRequest: { number: 3, draft: true },
      transcripts: "ticket-1/r/",
      evidence: "a ``` b ```` c",
    });
    assert.match(body, /\n`````\na ``` b ```` c\n`````\n/);
  });

  it("history marks go under the marker once", () => {
    const body = `${HANDOFF_MARKER}\n**Handed off.** x`;
    const once = markedAsHistory(body);
    assert.equal(once.split("\n")[1], HANDOFF_HISTORY);
    assert.equal(markedAsHistory(once), once);
    assert.equal(isCurrentHandoff(once), false);
  });

  it("stage answers: a clear reason names the field", () => {
    const bad = parseAnswer(codeAnswerSchema, { title: "", summary: "s" });
    assert.ok(!bad.ok && /title/.test(bad.why));
    assert.ok(!parseAnswer(codeAnswerSchema, undefined).ok);
  });

  it("the merge train lets a seat through only once every earlier seat has left, even when a later one leaves first", async () => {
    const train = new MergeTrain();
    const [a, b, c] = [train.join(), train.join(), train.join()];
    const passed: string[] = [];
    void c.turn().then(() => passed.push("c"));
    await a.turn();
    // b leaves early (its CI failed): c must still wait for a, which is merging.
    b.leave();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(passed, []);
    a.leave();
    await c.turn();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(passed, ["c"]);
  });

  it("summary: the closing line and exit code per docs/endings.md", () => {
    const base = { runId: "r", narrowed: false, stoppedAt: null, stoppedHolding: [], rateLimited: false };
    assert.equal(summarize({ ...base, rows: [{ ticket: 4, ending: "merged", line: "PR #5" }] }).exitCode, 0);
    assert.equal(summarize({ ...base, rows: [{ ticket: 4, ending: "handed-off", line: "x" }] }).exitCode, 1);
    assert.equal(summarize({ ...base, rateLimited: true, rows: [{ ticket: 4, ending: "released", line: "x" }] }).lines.at(-1), "Rate limited.");
    const stopped = summarize({ ...base, stoppedAt: new Date("2026-09-17T22:07:00Z"), stoppedHolding: [4, 9], rows: [] });
    assert.equal(stopped.lines.at(-1), "Stopped at 22:07 · finishing #4 #9.");
    assert.equal(summarize({ ...base, narrowed: true, rows: [{ ticket: 4, ending: "skipped", line: "not ready" }] }).exitCode, 2);
  });
});
