import assert from "node:assert/strict";
import { isLate, standings, type LeaseRecord } from "../../../src/core/claims/lease-standing";
import { lease } from "./claims-fixtures";

function rec(nonce: string, claimedAt: string, landed: string): LeaseRecord {
  return {
    comment: { id: String(nonce.length), url: `https://github.test/c/${nonce}`, author: "alice", createdAt: landed, updatedAt: landed },
    lease: lease({ nonce, claimedAt, expiresAt: "2026-12-01T13:00:00.000Z" }),
    finished: false,
  };
}

describe("claims: a claim that landed late ranks after every claim made in time (ADR 0172)", () => {
  const now = new Date("2026-12-01T12:10:00.000Z");

  it("late is judged from GitHub's createdAt against the lease's own claimedAt", () => {
    assert.equal(isLate(rec("a", "2026-12-01T12:00:00.500Z", "2026-12-01T12:00:01Z"), 1500), false);
    assert.equal(isLate(rec("a", "2026-12-01T12:00:00.500Z", "2026-12-01T12:00:02Z"), 1500), false, "1.5 s is allowed");
    assert.equal(isLate(rec("a", "2026-12-01T12:00:00.500Z", "2026-12-01T12:00:03Z"), 1500), true);
    assert.equal(isLate(rec("a", "2026-12-01T12:00:00.500Z", "2026-12-01T12:00:09Z"), undefined), false, "no lateMs: a display, no ranking");
  });

  it("a claim stamped first whose write landed 9 s later loses to a claim stamped after it that landed in time", () => {
    const lateA = rec("aaaa", "2026-12-01T12:00:00.000Z", "2026-12-01T12:00:09Z");
    const onTimeB = rec("bb", "2026-12-01T12:00:01.000Z", "2026-12-01T12:00:01Z");
    assert.equal(standings([lateA, onTimeB], now, 1500).winner, onTimeB);
    assert.equal(standings([lateA, onTimeB], now).winner, lateA, "without lateMs, the old order");
  });

  it("among late claims, and among claims in time, the earliest claimedAt still wins", () => {
    const late1 = rec("aaaa", "2026-12-01T12:00:00.000Z", "2026-12-01T12:00:09Z");
    const late2 = rec("bbbb", "2026-12-01T12:00:02.000Z", "2026-12-01T12:00:08Z");
    assert.equal(standings([late2, late1], now, 1500).winner, late1);
    const t1 = rec("cccc", "2026-12-01T12:00:00.000Z", "2026-12-01T12:00:00Z");
    const t2 = rec("dddd", "2026-12-01T12:00:00.200Z", "2026-12-01T12:00:01Z");
    assert.equal(standings([t2, t1, late1], now, 1500).winner, t1);
  });
});
