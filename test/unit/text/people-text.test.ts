import { strict as assert } from "node:assert";
import { oneLine, rule } from "../../../src/core/text/lines";
import { clock, formatDuration } from "../../../src/core/text/time";

// The one home of text meant for people (src/core/text/): each helper once, with its rules.
describe("text for people", () => {
  it("formats durations as docs/agents.md shows them, in the CLI and the extension alike", () => {
    assert.deepEqual([0, 850, 1500, 48_000, 61_000, 72_000, 3_720_000].map(formatDuration), ["0 ms", "850 ms", "2 s", "48 s", "1m 01s", "1m 12s", "1h 02m"]);
    assert.equal(formatDuration(-5), "0 ms");
  });

  it("reads the UTC time of day of an ISO timestamp, with or without seconds", () => {
    assert.equal(clock("2026-12-01T14:03:27.123Z"), "14:03:27");
    assert.equal(clock("2026-12-01T14:03:27.123Z", "minutes"), "14:03");
    assert.equal(clock(null), null);
  });

  it("puts any text on one line, cut with an ellipsis at the limit", () => {
    assert.equal(oneLine("  a\n\tb  c \r\n"), "a b c");
    assert.equal(oneLine("x".repeat(200)).length, 160);
    assert.equal(oneLine("x".repeat(100), 80), `${"x".repeat(79)}…`);
  });

  it("draws a Stage's rule 60 wide, never fewer than three rule characters", () => {
    assert.equal(rule("#42 implement").length, 60);
    assert.ok(rule("#42 implement").startsWith("── #42 implement ─"));
    assert.ok(rule("t".repeat(80)).endsWith(" ───"));
  });
});
