import { strict as assert } from "node:assert";
import { toolSummary, resultSummary } from "../../../src/adapters/agent/event-mapper";
import { oneLine } from "../../../src/core/text/lines";
import { formatDuration } from "../../../src/core/text/time";
import { TranscriptFormatter } from "../../../src/core/text/transcript-format";
import { LineBatcher, type BatcherClock } from "../../../src/vscode/run/transcript-batcher";
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
  /** A clock the test moves by hand: timers fire in order when `advance` passes them. */
  function manualClock(): BatcherClock & { advance(ms: number): void } {
    let now = 0;
    let timers: { at: number; fn: () => void; id: number }[] = [];
    let next = 0;
    return {
      now: () => now,
      setTimeout: (fn, ms) => (timers.push({ at: now + ms, fn, id: ++next }), next),
      clearTimeout: (id) => void (timers = timers.filter((t) => t.id !== id)),
      advance(ms) {
        const until = now + ms;
        for (;;) {
          const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
          if (!due) break;
          timers = timers.filter((t) => t !== due);
          now = due.at;
          due.fn();
        }
        now = until;
      },
    };
  }

  it("joins many lines into few appends and loses none (real timers)", async () => {
    const appends: string[] = [];
    const b = new LineBatcher((t) => appends.push(t), { firstDelayMs: 5, intervalMs: 20 });
    for (let i = 0; i < 5000; i += 1) b.push([`line ${i}`]);
    b.push(["tail"]);
    await waitFor(() => appends.join("").includes("tail\n"), { what: "the timed flush" });
    const all = appends
      .join("")
      .split("\n")
      .filter((l) => l.length > 0);
    assert.deepEqual(all, [...Array.from({ length: 5000 }, (_, i) => `line ${i}`), "tail"]);
    assert.equal(appends.length, 1, "pushed in one go: one append");
    b.dispose();
    b.push(["after dispose"]);
    assert.ok(!appends.join("").includes("after dispose"));
  });

  it("under a 20,000-line burst appends at most 4 times a second, in order, nothing lost; a quiet channel's first line goes out at once", () => {
    const clock = manualClock();
    const appends: { at: number; text: string }[] = [];
    const b = new LineBatcher((text) => appends.push({ at: clock.now(), text }), { clock });
    // Quiet channel: the first line is appended after firstDelayMs (50 ms), not after the interval.
    b.push(["first"]);
    clock.advance(50);
    assert.deepEqual(appends, [{ at: 50, text: "first\n" }]);
    // The demo agent's burst: 100 batches of 200 lines, one every 100 ms, plus odd single lines.
    const sent: string[] = ["first"];
    for (let batch = 0; batch < 100; batch += 1) {
      const lines = Array.from({ length: 200 }, (_, i) => `burst ${batch * 200 + i}`);
      b.push(lines);
      sent.push(...lines);
      clock.advance(37);
      b.push([`between ${batch}`]);
      sent.push(`between ${batch}`);
      clock.advance(63);
    }
    clock.advance(1000);
    const got = appends
      .map((a) => a.text)
      .join("")
      .split("\n")
      .slice(0, -1);
    assert.deepEqual(got, sent, "every line, in order");
    for (let i = 1; i < appends.length; i += 1) {
      assert.ok(appends[i]!.at - appends[i - 1]!.at >= 250, `appends ${i - 1} and ${i} at ${appends[i - 1]!.at} and ${appends[i]!.at} ms`);
    }
    assert.ok(appends.length <= 1 + Math.ceil((10_000 + 1000) / 250), `${appends.length} appends for 10 s`);
    // After the burst, quiet again: the next line goes out after firstDelayMs, not later.
    clock.advance(5000);
    const before = appends.length;
    b.push(["after"]);
    clock.advance(50);
    assert.equal(appends.length, before + 1);
    assert.equal(appends.at(-1)?.text, "after\n");
  });

  it("spaces appends out as the channel grows (what a shown channel re-reads stays bounded), never past maxIntervalMs", () => {
    const clock = manualClock();
    const appends: { at: number; chars: number }[] = [];
    const b = new LineBatcher((text) => appends.push({ at: clock.now(), chars: text.length }), { clock, charsPerMs: 1, maxIntervalMs: 2000 });
    for (let i = 0; i < 300; i += 1) {
      b.push(["x".repeat(99)]);
      clock.advance(100);
    }
    const gaps = appends.slice(1).map((a, i) => a.at - appends[i]!.at);
    let before = 0;
    for (const [i, gap] of gaps.entries()) {
      const expected = Math.min(2000, Math.max(250, before + appends[i]!.chars));
      before += appends[i]!.chars;
      assert.equal(gap, expected, `gap ${i} after ${before} characters`);
    }
    assert.ok(gaps.includes(2000), `the gap reached its bound: ${gaps.join(" ")}`);
    b.flush();
    assert.equal(
      appends.reduce((n, a) => n + a.chars, 0),
      300 * 100,
      "every character appended",
    );
  });

  it("appends at once when maxChars wait, and flush() empties the queue in order", () => {
    const clock = manualClock();
    const appends: string[] = [];
    const b = new LineBatcher((text) => appends.push(text), { clock, maxChars: 100 });
    b.push(["a".repeat(60)]);
    assert.equal(appends.length, 0);
    b.push(["b".repeat(60)]);
    assert.deepEqual(appends, [`${"a".repeat(60)}\n${"b".repeat(60)}\n`], "over the bound: appended without waiting");
    b.push(["c"]);
    b.flush();
    assert.deepEqual(appends.slice(1), ["c\n"]);
    clock.advance(1000);
    assert.equal(appends.length, 2, "the flushed line's timer was cancelled");
  });
});
