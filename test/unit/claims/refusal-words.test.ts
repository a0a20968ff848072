/**
 * Refusal sentences are built from parts (holderParts): each variant is checked word for word, so
 * a part that changes shape (a person's claim, an expired lease, no winner) still reads as a sentence.
 */
import assert from "node:assert/strict";
import { claimedElsewhere, heldByExpiredLease, heldHereWithoutRun, overtakenMeanwhile, raceLost } from "../../../src/core/claims/refusals";
import type { LeaseRecord } from "../../../src/core/claims/lease-standing";
import type { Lease } from "../../../src/core/schemas/lease";
import { lease } from "./claims-fixtures";

const NOW = new Date("2026-12-01T12:10:00.000Z");
const URL = "https://github.com/acme/widgets/issues/12#issuecomment-901";
const ISSUE = "https://github.com/acme/widgets/issues/12";
const LEASE = `Lease: ${URL}`;

function rec(over: Partial<Lease>): LeaseRecord {
  return {
    comment: { id: "901", url: URL, author: "bob", createdAt: "2026-12-01T12:05:03Z", updatedAt: "2026-12-01T12:05:03Z" },
    lease: lease({ claimedAt: "2026-12-01T12:05:03.000Z", expiresAt: "2026-12-01T12:50:03.000Z", session: "5e55104a-1111", ...over }),
    finished: false,
  };
}
const machine = rec({});
const person = rec({ holder: "person", expiresAt: null });
const expired = rec({ expiresAt: "2026-12-01T12:07:00.000Z" });
const MACHINE = `@bob on host "x" (machine, session 5e55104a)`;
const PERSON = `@bob on host "x" (person, session 5e55104a)`;
const TAKE_OVER = "Read that comment first. To take the ticket over anyway (its run is archived, nothing deleted): ticket-runner start 12 --take-over";
const STARTED_NOTHING = "This session started nothing; its lease is marked race-yielded.";

describe("claims: refusal sentences, word for word", () => {
  it("claimed elsewhere, by a machine's live lease", () => {
    assert.equal(
      claimedElsewhere("acme/widgets", 12, machine, NOW).message,
      [
        `acme/widgets#12 is claimed by ${MACHINE}, since 2026-12-01 12:05:03 UTC; its lease expires 2026-12-01 12:50:03 UTC (in 40 min).`,
        LEASE,
        TAKE_OVER,
      ].join("\n"),
    );
  });

  it("claimed elsewhere, by a person's claim", () => {
    assert.equal(
      claimedElsewhere("acme/widgets", 12, person, NOW).message,
      [`acme/widgets#12 is claimed by ${PERSON}, since 2026-12-01 12:05:03 UTC; it is a person's claim, which never expires.`, LEASE, TAKE_OVER].join("\n"),
    );
  });

  it("release of someone else's expired lease", () => {
    assert.equal(
      heldByExpiredLease("acme/widgets", 12, expired, NOW).message,
      [
        `acme/widgets#12 is held by ${MACHINE}, since 2026-12-01 12:05:03 UTC; its lease expired 2026-12-01 12:07:00 UTC (3 min ago).`,
        LEASE,
        "That lease has expired, but the claim is theirs until someone takes it, so only its holder releases it. Nothing was changed.",
        "To put the ticket back yourself, take it first (an expired lease needs no --take-over), then release it: `ticket-runner claim 12`, then `ticket-runner release 12`.",
      ].join("\n"),
    );
  });

  it("held by this Host without a run", () => {
    assert.equal(
      heldHereWithoutRun("acme/widgets", 12, machine, NOW).message,
      [
        `acme/widgets#12 is already held by this Host: ${MACHINE}, since 2026-12-01 12:05:03 UTC; its lease expires 2026-12-01 12:50:03 UTC (in 40 min).`,
        LEASE,
        "Re-enter it with: ticket-runner resume 12",
      ].join("\n"),
    );
  });

  it("lost the race to a machine (the sentence that read '…it never expires claimed it first')", () => {
    assert.equal(
      raceLost("acme/widgets", 12, machine, "/runs/issue-12/superseded/x", NOW).message,
      [
        `acme/widgets#12: another claim won the race: ${MACHINE} claimed it first, at 2026-12-01 12:05:03 UTC; its lease expires 2026-12-01 12:50:03 UTC (in 40 min).`,
        LEASE,
        `${STARTED_NOTHING} Its local claim was moved to /runs/issue-12/superseded/x. Pick another ticket: \`ticket-runner board\`.`,
      ].join("\n"),
    );
  });

  it("lost the race to a person", () => {
    assert.equal(
      raceLost("acme/widgets", 12, person, null, NOW).message,
      [
        `acme/widgets#12: another claim won the race: ${PERSON} claimed it first, at 2026-12-01 12:05:03 UTC; it is a person's claim, which never expires.`,
        LEASE,
        `${STARTED_NOTHING} Pick another ticket: \`ticket-runner board\`.`,
      ].join("\n"),
    );
  });

  it("lost the race to a claim that is gone since", () => {
    assert.equal(
      raceLost("acme/widgets", 12, null, null, NOW).message,
      [
        "acme/widgets#12: this claim did not win the race, and the claim that did has since been taken over or withdrawn.",
        `${STARTED_NOTHING} Pick another ticket: \`ticket-runner board\`.`,
      ].join("\n"),
    );
  });

  it("a late write: the ticket closed, handed off or finished while the claim was being written", () => {
    for (const why of ["the ticket was closed", "the ticket was handed to a person (ready-for-human)", "another claim was made and finished"]) {
      assert.equal(
        overtakenMeanwhile("acme/widgets", 12, why, ISSUE, null).message,
        [`acme/widgets#12: ${why} while this claim was being written: ${ISSUE}`, `${STARTED_NOTHING} Pick another ticket: \`ticket-runner board\`.`].join("\n"),
      );
    }
  });
});
