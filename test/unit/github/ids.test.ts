import assert from "node:assert/strict";
import { leaseSchema } from "../../../src/core/schemas/lease";
import { githubIdSchema } from "../../../src/core/schemas/github-id";
import { runJsonSchema } from "../../../src/core/schemas/run-json";
import { runJsonFixture } from "../../support/run-json";

describe("GitHub ids as strings (ADR 0130)", () => {
  it("keeps an id past 2^53 exact, which a JavaScript number cannot", () => {
    const past53 = "9007199254740993"; // 2^53 + 1
    assert.notEqual(String(Number(past53)), past53, "a number would round it");
    assert.equal(githubIdSchema.parse(past53), past53);
  });

  it("reads a run.json written before ids were strings: its numeric commentId becomes the same digits", () => {
    const old = { ...runJsonFixture(), commentId: 3_076_667_581 };
    assert.equal(runJsonSchema.parse(old).commentId, "3076667581");
    assert.equal(runJsonSchema.parse({ ...old, commentId: "3076667581" }).commentId, "3076667581");
  });

  it("refuses what is not an id, naming it", () => {
    for (const bad of ["", "0", "-5", "12a", "1.5", 0, -1, 1.5]) {
      const r = githubIdSchema.safeParse(bad);
      assert.equal(r.success, false, `${JSON.stringify(bad)} is not an id`);
    }
  });

  it("reads a lease's take-over comment id in either form", () => {
    const lease = {
      version: 1,
      repo: "acme/shop",
      issue: 3,
      host: { id: "h", name: "desk", kind: "workstation" },
      session: "s",
      run: "r",
      holder: "machine",
      user: "ana",
      claimedAt: "2026-09-17T08:00:00.000Z",
      expiresAt: "2026-09-17T08:45:00.000Z",
      nonce: "abcdefgh",
      state: "claimed",
      takeover: { from: "zzzzzzzz", kind: "takeover-stale", at: "2026-09-17T08:00:00.000Z", fromComment: 4_294_968_296 },
    };
    const parsed = leaseSchema.safeParse(lease);
    assert.ok(parsed.success, parsed.success ? "" : parsed.error.message);
    assert.equal(parsed.data.takeover?.fromComment, "4294968296");
  });
});
