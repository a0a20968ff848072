import { strict as assert } from "node:assert";
import fc from "fast-check";
import { Refusal } from "../../../src/core/errors";
import { MAX_SPREAD, START_TOGETHER_MS, firstFillAnchor, firstFillOrder, spreadOrder, stripeOf, stripeOrder } from "../../../src/core/run/frontier";
import type { LockHolder } from "../../../src/ports/workspace";
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

describe("Run: Hosts started together spread their first picks (ADR 0441)", () => {
  const issues = (ns: number[]) => ns.map((number) => ({ number }));

  it("the first fill's order starts at the anchor ticket, goes on lowest first, then back to those passed over", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 10_000 })), fc.integer({ min: 1, max: 10_000 }), (xs, anchor) => {
        const lowestFirst = issues([...xs].sort((a, b) => a - b));
        const out = firstFillOrder(lowestFirst, anchor).map((i) => i.number);
        assert.deepEqual(
          [...out].sort((a, b) => a - b),
          lowestFirst.map((i) => i.number),
        );
        const from = lowestFirst.find((i) => i.number >= anchor);
        if (from) assert.equal(out[0], from.number);
      }),
    );
    assert.deepEqual(
      firstFillOrder(issues([1, 2, 3, 4, 5]), 3).map((i) => i.number),
      [3, 4, 5, 1, 2],
    );
    // Another Run's claims took 1 and 2 off the Frontier meanwhile: the anchor is a ticket, not a place.
    assert.deepEqual(
      firstFillOrder(issues([3, 4, 5, 6]), 3).map((i) => i.number),
      [3, 4, 5, 6],
    );
  });

  it("starts past the Lanes of each other Host's Run started within a minute of it, never more than MAX_SPREAD - 1 places in", () => {
    const t0 = Date.parse("2026-12-02T06:00:00Z");
    const iso = (ms: number) => new Date(t0 + ms).toISOString();
    const at = (ms: number) => ({ startedAt: iso(ms), runId: `run-${ms}` });
    const frontier = Array.from({ length: 30 }, (_, i) => 101 + i);
    assert.equal(firstFillAnchor(frontier, [], at(0), 2), null, "alone: from the lowest");
    assert.equal(firstFillAnchor(frontier, [at(-800)], at(0), 2), 103, "second of two");
    assert.equal(firstFillAnchor(frontier, [at(-1500), at(-900), at(-300)], at(0), 2), 107, "fourth of four");
    assert.equal(firstFillAnchor(frontier, [at(-START_TOGETHER_MS - 1), at(-2_000)], at(0), 2), 103, "a Run started long before is busy with its own tickets");
    assert.equal(firstFillAnchor(frontier, [at(-START_TOGETHER_MS - 1)], at(0), 2), null);
    assert.equal(
      firstFillAnchor(
        frontier,
        Array.from({ length: 12 }, (_, i) => at(-i * 100)),
        at(0),
        4,
      ),
      101 + MAX_SPREAD - 1,
    );
    assert.equal(firstFillAnchor([101, 102, 103], [at(-1), at(-2)], at(0), 2), 102, "a short Frontier wraps");
    assert.equal(firstFillAnchor([], [at(-1)], at(0), 2), null);
  });

  it("counts only the Runs started before it: one started after it, which it saw because that one's lock landed first, starts past it instead (ADR 0450)", () => {
    const t0 = Date.parse("2026-12-02T06:00:00Z");
    const at = (ms: number, runId = `run-${ms}`) => ({ startedAt: new Date(t0 + ms).toISOString(), runId });
    const frontier = Array.from({ length: 30 }, (_, i) => 101 + i);
    assert.equal(firstFillAnchor(frontier, [at(300), at(900)], at(0), 2), 101, "first of three: from the lowest, strictly");
    assert.equal(firstFillAnchor(frontier, [at(-300), at(900)], at(0), 2), 103, "second of three");
    // Two Runs started in the same millisecond: the run id orders them, the same way from both sides.
    assert.equal(firstFillAnchor(frontier, [at(0, "run-b")], at(0, "run-a"), 2), 101);
    assert.equal(firstFillAnchor(frontier, [at(0, "run-a")], at(0, "run-b"), 2), 103);
  });
});

describe("Runs started together keep to their own places of the Frontier after the first fill (ADR 0451)", () => {
  const t0 = Date.parse("2026-12-02T06:00:00Z");
  const at = (ms: number) => ({ startedAt: new Date(t0 + ms).toISOString(), runId: `run-${ms}` });
  const frontier = Array.from({ length: 24 }, (_, i) => 101 + i);

  it("takes its Lanes' worth of places in each round, in the Runs' order of start", () => {
    // Four Runs × 2 Lanes: the second started takes places 3-4 of every 8.
    assert.deepEqual([...stripeOf(frontier, [at(-500), at(400), at(900)], at(0), 2)!], [103, 104, 111, 112, 119, 120]);
    assert.deepEqual([...stripeOf(frontier, [at(400), at(900), at(1200)], at(0), 2)!], [101, 102, 109, 110, 117, 118]);
    assert.equal(stripeOf(frontier, [], at(0), 2), null, "alone: no stripe, strictly lowest first");
    assert.equal(stripeOf(frontier, [at(-START_TOGETHER_MS - 1)], at(0), 2), null, "a Run started long before is not in step with it");
  });

  it("picks its own tickets among the lowest first, then the rest in the usual order; another Run's ticket nobody takes waits only while own ones are near", () => {
    const issues = (ns: number[]) => ns.map((number) => ({ number }));
    const stripe = new Set([103, 104, 111, 112]);
    const order = (open: number[]) => stripeOrder(issues(open), stripe, 4, (rest) => rest).map((i) => i.number);
    assert.deepEqual(order([101, 102, 103, 104, 105]), [103, 104, 101, 102, 105]);
    // 111 is beyond the 4 lowest: the lowest come first, as a Run alone takes them.
    assert.deepEqual(order([101, 102, 105, 106, 111]), [101, 102, 105, 106, 111]);
  });
});

describe("Run: a Run that knows from its lock it is not alone spreads from its first pick (ADR 0441)", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  const claimed = (): number[] => w.gate.calls.filter((c) => c.startsWith("claim #")).map((c) => Number(c.slice("claim #".length)));
  const peer = (host: string, startedAt: Date): LockHolder => ({
    host: { id: host, name: host, kind: "workstation" },
    pid: 4242,
    command: "ticket-runner run",
    runId: `run-${host}`,
    startedAt: startedAt.toISOString(),
    processStartTime: null,
  });

  beforeEach(() => (w.config = { ...w.config, lockScope: "host" }));

  it("second of two Runs started together, 2 Lanes: its first two picks are the third and fourth tickets", async () => {
    const tickets = Array.from({ length: 8 }, (_, i) => w.ticket(`T${i}`));
    w.remote.peerLocks = [peer("host-a", new Date(w.clock.now().getTime() - 1_000))];
    await w.run({ lanes: 2 }).start();
    const order = claimed();
    assert.deepEqual(
      [...order.slice(0, 2)].sort((a, b) => a - b),
      tickets.slice(2, 4),
      `first picks ${order.slice(0, 2).join(", ")}`,
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      tickets,
      "and then every ticket, the passed-over ones included",
    );
  });

  it("the peer's claims landing between its start and its first pick do not move where it starts", async () => {
    const tickets = Array.from({ length: 8 }, (_, i) => w.ticket(`T${i}`));
    w.remote.peerLocks = [peer("host-a", new Date(w.clock.now().getTime() - 1_000))];
    // The first Run's two claims take its tickets off the Frontier while this one takes its lock.
    w.remote.onLockTaken = () => {
      for (const n of tickets.slice(0, 2)) w.issue(n).labels = w.issue(n).labels.filter((l) => l !== "ready-for-agent");
    };
    await w.run({ lanes: 2 }).start();
    const order = claimed();
    assert.deepEqual(
      [...order.slice(0, 2)].sort((a, b) => a - b),
      tickets.slice(2, 4),
      `first picks ${order.slice(0, 2).join(", ")}`,
    );
  });

  it("beside a Run started long before, it starts at the head, one of the 4 lowest", async () => {
    const tickets = Array.from({ length: 8 }, (_, i) => w.ticket(`T${i}`));
    w.remote.peerLocks = [peer("host-a", new Date(w.clock.now().getTime() - 3_600_000))];
    await w.run({ lanes: 1 }).start();
    const order = claimed();
    const left = [...tickets];
    for (const n of order) {
      assert.ok(left.slice(0, 4).includes(n), `#${n} is among the 4 lowest left (${left.slice(0, 4).join(", ")})`);
      left.splice(left.indexOf(n), 1);
    }
    assert.notDeepEqual(order, tickets, "the picks are spread before any take is lost");
  });

  it("third of three Runs started together, 2 Lanes: after its first fill it keeps to its own places, the fifth and sixth of every six (ADR 0451)", async () => {
    const tickets = Array.from({ length: 12 }, (_, i) => w.ticket(`T${i}`));
    const now = w.clock.now().getTime();
    w.remote.peerLocks = [peer("host-a", new Date(now - 2_000)), peer("host-b", new Date(now - 1_000))];
    await w.run({ lanes: 2 }).start();
    const order = claimed();
    // The other Runs are only locks here, so nobody takes their places: this one takes its own first.
    assert.deepEqual(
      [...order.slice(0, 4)].sort((a, b) => a - b),
      [tickets[4], tickets[5], tickets[10], tickets[11]],
      `first picks ${order.join(", ")}`,
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      tickets,
      "and then every ticket",
    );
  });
});
