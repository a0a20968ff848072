import { strict as assert } from "node:assert";
import { SlicedQueue } from "../../../src/adapters/agent/sliced-queue";

describe("SlicedQueue", () => {
  it("handles every item in order, yielding to the event loop between slices, and pauses above the high-water mark", async () => {
    const seen: number[] = [];
    const marks: string[] = [];
    let ticksDuring = 0;
    const q = new SlicedQueue<number>(
      (n) => {
        seen.push(n);
        const until = Date.now() + 1; // ~1 ms of work per item: forces several slices
        while (Date.now() < until) {
          /* busy */
        }
      },
      { budgetMs: 4, highWater: 10, onHigh: () => marks.push("high"), onLow: () => marks.push("low") },
    );
    const timer = setInterval(() => {
      if (seen.length > 0 && seen.length < 50) ticksDuring += 1;
    }, 0);
    for (let i = 0; i < 50; i += 1) q.push(i);
    await q.idle();
    clearInterval(timer);
    assert.deepEqual(
      seen,
      Array.from({ length: 50 }, (_, i) => i),
    );
    assert.deepEqual(marks, ["high", "low"]);
    assert.ok(ticksDuring > 0, "a timer ran while the queue was being worked through");
    await q.idle();
  });
});
