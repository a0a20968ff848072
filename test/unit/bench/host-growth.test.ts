import assert from "node:assert/strict";
import { growthMisses, perMinute } from "../../../bench/support/host-growth";

const row = (k: number, wallS: number, merged = 24) => ({ k, merged, wallMs: wallS * 1000 });

describe("bench:hosts: the instant agent's rows grow with every Host (ADR 0511)", () => {
  it("counts tickets a minute from the merged tickets and the wall", () => {
    assert.equal(perMinute(row(1, 48)), 30);
  });

  it("passes rows whose tickets/min rise with K, in whatever order they come", () => {
    assert.deepEqual(growthMisses([row(4, 17.7), row(1, 48), row(2, 26.7)]), []);
  });

  it("names the row that fell, with both figures", () => {
    const missed = growthMisses([row(1, 53.9), row(2, 57.8), row(4, 66.7)]);
    assert.deepEqual(missed, [
      "instant agent: K = 2 24.9 tickets/min, not above K = 1's 26.7",
      "instant agent: K = 4 21.6 tickets/min, not above K = 2's 24.9",
    ]);
  });

  it("counts a row level with the one before as a miss: one more Host must add throughput", () => {
    assert.equal(growthMisses([row(1, 40), row(2, 40)]).length, 1);
  });

  it("judges fewer merged tickets as fewer tickets a minute", () => {
    assert.equal(growthMisses([row(1, 48), row(2, 26.7, 12)]).length, 1);
  });
});
