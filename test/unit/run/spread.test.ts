import { strict as assert } from "node:assert";
import fc from "fast-check";
import { MAX_SPREAD, spreadOrder } from "../../../src/core/run/frontier";

describe("Run: Hosts spread over the head of the Frontier", () => {
  it("a window of 1 is the Frontier's own order, lowest first", () => {
    fc.assert(fc.property(fc.array(fc.integer()), fc.string(), (xs, key) => assert.deepEqual(spreadOrder(xs, 1, key), xs)));
  });

  it("is always a reordering of the window only: every ticket once, everything past the window in order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 10_000 })), fc.integer({ min: 1, max: MAX_SPREAD }), fc.string(), (xs, w, key) => {
        const out = spreadOrder(xs, w, key);
        assert.deepEqual([...out].sort((a, b) => a - b), [...xs].sort((a, b) => a - b));
        const cut = Math.min(w, xs.length);
        assert.deepEqual(out.slice(cut), xs.slice(cut));
        assert.deepEqual([...out.slice(0, cut)].sort((a, b) => a - b), [...xs.slice(0, cut)].sort((a, b) => a - b));
      }),
    );
  });

  it("different Hosts reach first for different tickets of the head", () => {
    const frontier = Array.from({ length: 24 }, (_, i) => i + 1);
    const firsts = new Set(["host-a", "host-b", "host-c", "host-d", "host-e", "host-f"].map((h) => spreadOrder(frontier, 16, `${h}:run:1`)[0]));
    assert.ok(firsts.size >= 4, `first picks: ${[...firsts].join(", ")}`);
    for (const f of firsts) assert.ok(f! <= 16);
  });
});
