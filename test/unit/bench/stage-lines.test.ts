import assert from "node:assert/strict";
import { durationSeconds, stageSeconds } from "../../../bench/support/stage-lines";

/** Lines as `ticket-runner run` printed them (TICKET_RUNNER_TTY=0), copied from a bench:hosts Run at c36fabc (2026-12-02). */
const RUN_OUTPUT = `[07:57:28] #5 verify: ✅ 2 of 2 met · 2 turns · 3 s
[07:57:28] #5 rebase: ✅ up-to-date · 43 ms
[07:57:28] #5 pr: ✅ #29 · 125 ms
[07:57:28] #6 verify: ✅ 2 of 2 met · 2 turns · 3 s
[07:57:28] #6 rebase: ✅ up-to-date · 56 ms
[07:57:29] #6 pr: ✅ #30 · 121 ms
[07:57:32] #5 ci: ✅ passed · 3 s
[07:57:32] #5 merge: ✅ merged (squash) · 50 ms
[07:57:32] #6 ci: ✅ passed · 3 s
[07:57:32] #5 merged: PR #29
[07:57:32] #6 merge: ✅ merged (squash) · 60 ms
[07:57:32] lane 1: #7 Add the hostsga helper
[07:57:32] #6 merged: PR #30
`;

describe("bench: the Stage lines bench:hosts reads", () => {
  it("counts every Stage line's own duration, even one followed by a line with no '·' (the ci line before 'merged' was dropped)", () => {
    const sums = stageSeconds([RUN_OUTPUT]);
    assert.equal(sums.get("ci"), 6);
    assert.equal(sums.get("verify"), 6);
    assert.equal(sums.get("merge")?.toFixed(3), "0.110");
    assert.equal(sums.get("rebase")?.toFixed(3), "0.099");
    assert.equal(sums.get("pr")?.toFixed(3), "0.246");
    assert.equal(sums.has("merged"), false, "'#5 merged: PR #29' is no Stage");
  });

  it("reads formatDuration's text and nothing else", () => {
    assert.equal(durationSeconds("500 ms"), 0.5);
    assert.equal(durationSeconds("12 s"), 12);
    assert.equal(durationSeconds("1m 12s"), 72);
    assert.equal(durationSeconds("2h 05m"), 7500);
    assert.equal(durationSeconds("3 s\n[07:57:32] #5 merged: PR #29"), null);
  });
});
