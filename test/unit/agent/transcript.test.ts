import { strict as assert } from "node:assert";
import { toolSummary, resultSummary } from "../../../src/adapters/agent/event-mapper";
import { oneLine } from "../../../src/core/text/lines";
import { formatDuration } from "../../../src/core/text/time";
import { TranscriptFormatter } from "../../../src/core/text/transcript-format";
import { LineBatcher } from "../../../src/vscode/run/transcript-batcher";
import { waitFor } from "../../support/wait-for";

describe("event mapper: tool one-liners and result summaries", () => {
  it("names what each tool acts on, relative to the worktree", () => {
    assert.equal(toolSummary("Edit", { file_path: "/w/t/src/discount.ts" }, "/w/t"), "src/discount.ts");
    assert.equal(toolSummary("Write", { file_path: "/elsewhere/x" }, "/w/t"), "/elsewhere/x");
    assert.equal(toolSummary("Bash", { command: "npm test\nnpm run lint" }, "/w"), "npm test");
    assert.equal(toolSummary("Grep", { pattern: "TODO", path: "/w/src" }, "/w"), '"TODO" in src');
    assert.equal(toolSummary("TodoWrite", { todos: [1, 2, 3] }, "/w"), "3 items");
    assert.equal(toolSummary("mcp__x__y", { q: "find it", n: 1 }, "/w"), "find it");
    assert.equal(toolSummary("Read", { file_path: "/a/b" }, "/x\0/a"), "b", "also relative to the agent's own cwd");
  });

  it("summarises results in one line with a count of the rest", () => {
    assert.equal(resultSummary("one"), "one");
    assert.equal(resultSummary("a\n\nb\nc"), "a (+2 more lines)");
    assert.equal(resultSummary([{ type: "text", text: "x\ny" }]), "x (+1 more line)");
    assert.equal(resultSummary(""), "(no output)");
    assert.equal(oneLine("a".repeat(200)).length, 160);
  });
});

describe("transcript format", () => {
  it("renders a Stage as header, lines, and a footer with outcome, turns and duration", () => {
    const f = new TranscriptFormatter();
    const lines = [
      ...f.format({ kind: "start", stage: "implement", ticket: 42, command: "claude -p <prompt>" }),
      ...f.format({ kind: "init", model: "m", sessionId: "s" }),
      ...f.format({ kind: "text", text: "Reading.\n" }),
      ...f.format({ kind: "tool", name: "Edit", summary: "src/discount.ts" }),
      ...f.format({ kind: "tool-result", summary: "updated", isError: false }),
      ...f.format({ kind: "tool", name: "Bash", summary: "npm test" }),
      ...f.format({ kind: "tool-result", summary: "1 failing", isError: true }),
      ...f.format({ kind: "rate-limit", status: "allowed_warning" }),
      ...f.format({ kind: "ignored", reason: "x" }),
      ...f.format({ kind: "result", outcome: "success", turns: 7, text: "", durationMs: 72_000 }),
    ];
    assert.match(lines[0]!, /^── #42 implement ─+$/);
    assert.deepEqual(lines.slice(1, 8), [
      "$ claude -p <prompt>",
      "session s · model m",
      "Reading.",
      "▸ Edit src/discount.ts",
      "  ✓ updated",
      "▸ Bash npm test",
      "  ✗ 1 failing",
    ]);
    assert.equal(lines[8], "⚠ rate limit: allowed_warning");
    assert.match(lines[9]!, /^── implement: ✓ success · 7 turns · 1m 12s ─+$/);
    assert.equal(lines.length, 10, "ignored events are hidden by default");
  });

  it("shows the failure detail under the footer and ignored events when asked", () => {
    const f = new TranscriptFormatter({ showIgnored: true });
    f.format({ kind: "start", stage: "verify", ticket: 1, command: "c" });
    assert.deepEqual(f.format({ kind: "ignored", reason: "why" }), ["  · ignored: why"]);
    const out = f.format({ kind: "result", outcome: "rate-limited", turns: 1, text: "", durationMs: 500, detail: "rate limited: the API answered 429" });
    assert.match(out[0]!, /verify: ⏸ rate-limited · 1 turn · 500 ms/);
    assert.equal(out[1], "  rate limited: the API answered 429");
  });

  it("formats durations", () => {
    assert.deepEqual([formatDuration(0), formatDuration(1500), formatDuration(61_000), formatDuration(3_720_000)], ["0 ms", "2 s", "1m 01s", "1h 02m"]);
  });
});

describe("LineBatcher", () => {
  it("joins many lines into few appends and loses none", async () => {
    const appends: string[] = [];
    const b = new LineBatcher((t) => appends.push(t), { intervalMs: 20, maxLines: 1000 });
    for (let i = 0; i < 5000; i += 1) b.push([`line ${i}`]);
    b.push(["tail"]);
    await waitFor(() => appends.join("").includes("tail\n"), { what: "the timed flush" });
    const all = appends
      .join("")
      .split("\n")
      .filter((l) => l.length > 0);
    assert.equal(all.length, 5001);
    assert.ok(appends.length <= 7, `${appends.length} appends`);
    b.dispose();
    b.push(["after dispose"]);
    assert.ok(!appends.join("").includes("after dispose"));
  });
});
