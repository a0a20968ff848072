/**
 * A heartbeat that overlaps an ending (found by the kill-anywhere trials: the Run's heartbeat is a
 * timer beside the ticket's pipeline). Against the sandbox with the real claim protocol: a
 * heartbeat and a finish / release / hand-off are started together, many times. Expected: the
 * ending wins every time. The lease reads finished / released / handed-off, never "claimed"
 * again (a live lease on a closed or released ticket blocks the next Run until it expires), and
 * never "superseded" (the heartbeat must not mistake our own ending for a rival).
 */
import { strict as assert } from "node:assert";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import { FULL, useClaimsSandbox } from "../../integration/claims/claims-sandbox";
import { record } from "../support/figures";
import { rounds } from "../../support/rounds";

const ROUNDS = rounds(6, 2);

describe("reliability: a heartbeat racing the ending of its claim", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write" } });

  before(async () => {
    // Random latency on every request, so the two writers land in either order.
    await s.sandbox.admin.setFaults({ latencyMs: 5, jitterMs: 150 });
  });

  for (const ending of ["finish", "release", "handOff"] as const) {
    it(`${ending} beside a heartbeat: the ending is what the lease says, every time`, async () => {
      const expected = { finish: "finished", release: "released", handOff: "handed-off" }[ending];
      const seen: string[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const n = await s.issue(`race ${ending} ${i}`);
        const { gate } = s.claimer({ user: "alice", host: `h-${ending}-${i}`, settleMs: 0 });
        const got = await gate.claim(n);
        assert.equal(got.kind, "won");
        if (got.kind !== "won") return;
        // Both in flight at once, in either order of starting.
        const beat = gate.heartbeat(got.claim);
        const end = i % 2 === 0 ? gate[ending](got.claim) : Promise.resolve().then(() => gate[ending](got.claim));
        await Promise.all([beat, end]);
        const comments = await s.tracker("alice").listComments(n);
        const lease = comments.map((c) => parseLeaseComment(c.body, { repo: FULL, issue: n })).find((p) => p.kind === "lease");
        seen.push(lease?.kind === "lease" ? lease.lease.state : "none");
      }
      record("race.heartbeat-ending", {
        what: "a heartbeat overlapping an ending never revives or supersedes the ended lease",
        test: "test/reliability/quick/heartbeat-ending-race.test.ts",
        trials: ROUNDS,
        losses: seen.filter((x) => x !== expected).length,
      });
      assert.deepEqual(seen, Array(ROUNDS).fill(expected));
    });
  }
});
