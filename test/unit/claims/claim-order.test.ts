import assert from "node:assert/strict";
import { compareIds, standings, type LeaseRecord } from "../../../src/core/claims/lease-standing";
import { lease } from "./claims-fixtures";

function rec(nonce: string, id: string, claimedAt: string, landed: string): LeaseRecord {
  return {
    comment: { id, url: `https://github.test/c/${id}`, author: "alice", createdAt: landed, updatedAt: landed },
    lease: lease({ nonce, claimedAt, expiresAt: "2026-12-01T13:00:00.000Z" }),
    finished: false,
  };
}

describe("claims: the claim whose comment landed first holds the ticket (ADR 0380)", () => {
  const now = new Date("2026-12-01T12:10:00.000Z");

  it("a claim stamped first whose write landed 9 s later loses to a claim stamped after it that landed first", () => {
    const lateA = rec("aaaa", "3076667590", "2026-12-01T12:00:00.000Z", "2026-12-01T12:00:09Z");
    const firstB = rec("bbbb", "3076667582", "2026-12-01T12:00:01.000Z", "2026-12-01T12:00:01Z");
    assert.equal(standings([lateA, firstB], now).winner, firstB);
    assert.equal(standings([firstB, lateA], now).winner, firstB, "whatever order they are read in");
  });

  it("the landing order, not claimedAt or nonce, decides two claims in the same second (a clock running ahead loses nothing)", () => {
    const ahead = rec("0000", "3076667581", "2026-12-01T12:00:05.000Z", "2026-12-01T12:00:01Z");
    const behind = rec("ffff", "3076667583", "2026-12-01T12:00:00.000Z", "2026-12-01T12:00:01Z");
    assert.equal(standings([behind, ahead], now).winner, ahead);
  });

  it("ids compare exactly past 2^31 and past 2^53, and across lengths", () => {
    assert.ok(compareIds("9007199254740993", "9007199254740992") > 0, "2^53 + 1 after 2^53 (a Number would call them equal)");
    assert.ok(compareIds("999999999", "3076667581") < 0, "a shorter id is an older one");
    assert.equal(compareIds("3076667581", "3076667581"), 0);
    const big = rec("bbbb", "9007199254740993", "2026-12-01T12:00:00.000Z", "2026-12-01T12:00:01Z");
    const small = rec("aaaa", "9007199254740992", "2026-12-01T12:00:01.000Z", "2026-12-01T12:00:01Z");
    assert.equal(standings([big, small], now).winner, small);
  });
});
