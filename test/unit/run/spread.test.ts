import { strict as assert } from "node:assert";
import fc from "fast-check";
import { Refusal } from "../../../src/core/errors";
import { MAX_SPREAD, spreadOrder } from "../../../src/core/run/frontier";
import { World } from "./world";

describe("Run: Hosts spread over the head of the Frontier", () => {
  it("a window of 1 is the Frontier's own order, lowest first", () => {
    fc.assert(fc.property(fc.array(fc.integer()), fc.string(), (xs, key) => assert.deepEqual(spreadOrder(xs, 1, key), xs)));
  });

  it("is always a reordering of the window only: every ticket once, everything past the window in order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 10_000 })), fc.integer({ min: 1, max: MAX_SPREAD }), fc.string(), (xs, w, key) => {
        const out = spreadOrder(xs, w, key);
        assert.deepEqual(
          [...out].sort((a, b) => a - b),
          [...xs].sort((a, b) => a - b),
        );
        const cut = Math.min(w, xs.length);
        assert.deepEqual(out.slice(cut), xs.slice(cut));
        assert.deepEqual(
          [...out.slice(0, cut)].sort((a, b) => a - b),
          [...xs.slice(0, cut)].sort((a, b) => a - b),
        );
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

describe("Run: a Host that loses a take to another Host spreads its picks", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  const claimed = (): number[] => w.gate.calls.filter((c) => c.startsWith("claim #")).map((c) => Number(c.slice("claim #".length)));

  it("alone, it takes the Frontier strictly lowest first", async () => {
    const tickets = Array.from({ length: 8 }, (_, i) => w.ticket(`T${i}`));
    await w.run().start();
    assert.deepEqual(claimed(), tickets);
  });

  it("after a take lost to a rival, each pick is one of the 4 lowest left, not always the lowest", async () => {
    const tickets = Array.from({ length: 10 }, (_, i) => w.ticket(`T${i}`));
    w.gate.claimOverride = (n) =>
      n === tickets[0] ? { kind: "lost", reason: "another Host holds it", refusal: new Refusal("claimed-elsewhere", "held elsewhere") } : null;
    await w.run().start();
    const order = claimed();
    assert.equal(order[0], tickets[0]);
    const left = tickets.slice(1);
    for (const n of order.slice(1)) {
      assert.ok(left.slice(0, 4).includes(n), `#${n} is among the 4 lowest left (${left.slice(0, 4).join(", ")})`);
      left.splice(left.indexOf(n), 1);
    }
    assert.notDeepEqual(order.slice(1), tickets.slice(1), "the picks are spread");
  });
});
