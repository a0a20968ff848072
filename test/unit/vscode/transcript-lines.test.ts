import * as assert from "node:assert/strict";
import type { RunEvent } from "../../../src/core/run/run-events";
import { TicketTranscript } from "../../../src/vscode/run/transcript-lines";

const at = "2026-09-17T10:02:03.000Z";

describe("a ticket's transcript in its output channel", () => {
  it("reads like a log: lane, Stage headers, one line per tool call, results summarized, outcome and duration", () => {
    const t = new TicketTranscript(42);
    const events: RunEvent[] = [
      { kind: "lane-started", lane: 1, ticket: 42, title: "Add a discount", resumed: false, at },
      { kind: "stage-started", lane: 1, ticket: 42, stage: "implement", at },
      { kind: "transcript", lane: 1, ticket: 42, stage: "implement", event: { kind: "start", stage: "implement", ticket: 42, command: "claude -p …" } },
      { kind: "transcript", lane: 1, ticket: 42, stage: "implement", event: { kind: "text", text: "I'll read the cart." } },
      { kind: "transcript", lane: 1, ticket: 42, stage: "implement", event: { kind: "tool", name: "Edit", summary: "src/discount.ts" } },
      { kind: "transcript", lane: 1, ticket: 42, stage: "implement", event: { kind: "tool-result", summary: "ok", isError: false } },
      { kind: "transcript", lane: 1, ticket: 42, stage: "implement", event: { kind: "tool", name: "Bash", summary: "npm test" } },
      {
        kind: "transcript",
        lane: 1,
        ticket: 42,
        stage: "implement",
        event: { kind: "result", outcome: "success", turns: 3, text: "done", durationMs: 72_000 },
      },
      { kind: "stage-ended", lane: 1, ticket: 42, stage: "implement", outcome: "✅ done", turns: 3, durationMs: 72_000, at },
      { kind: "stage-started", lane: 1, ticket: 42, stage: "checks", at },
      { kind: "stage-ended", lane: 1, ticket: 42, stage: "checks", outcome: "✅ passed", turns: null, durationMs: 1_500, at },
      { kind: "ticket-ended", lane: 1, ticket: 42, ending: "merged", line: "PR #7", at },
    ];
    const text = events.flatMap((e) => t.lines(e)).join("\n");
    assert.match(text, /── #42 Add a discount ─+\n10:02:03 lane 2 · taken from the Frontier/);
    assert.match(
      text,
      /── #42 implement ─+\n\$ claude -p …\nI'll read the cart\.\n▸ Edit src\/discount\.ts\n {2}✓ ok\n▸ Bash npm test\n── implement: ✅ done · 3 turns · 1m 12s ─+/,
    );
    assert.match(text, /── #42 checks ─+\n── checks: ✅ passed · 2 s ─+/);
    assert.match(text, /10:02:03 ■ merged: PR #7/);
    assert.equal((text.match(/── #42 implement/g) ?? []).length, 1, "one header per agent Stage");
  });

  it("ignores other tickets' events", () => {
    const t = new TicketTranscript(1);
    assert.deepEqual(t.lines({ kind: "stage-started", lane: 0, ticket: 2, stage: "checks", at }), []);
    assert.deepEqual(t.lines({ kind: "run-stopping", holding: [1], at }), []);
  });

  it("keeps a failed session's detail line", () => {
    const t = new TicketTranscript(5);
    const lines = t.lines({
      kind: "transcript",
      lane: 0,
      ticket: 5,
      stage: "verify",
      event: { kind: "result", outcome: "timed-out", turns: 9, text: "", detail: "the Stage ran past 45 min" },
    });
    assert.deepEqual(lines, ["  the Stage ran past 45 min"]);
  });
});
