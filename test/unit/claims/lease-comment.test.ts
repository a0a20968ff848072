import assert from "node:assert/strict";
import fc from "fast-check";
import { claimRegion, parseLeaseComment, renderLeaseComment } from "../../../src/core/claims/lease-comment";
import { FINISHED_MARKER, leaseMarker, parseTicketNumber } from "../../../src/core/claims/marker";
import type { Lease } from "../../../src/core/schemas/lease";
import { lease, leaseBody } from "./claims-fixtures";

const ON = { repo: "acme/widgets", issue: 12 };
/** fast-check runs per property; the total is reported by the last test. */
const RUNS = 1000;
let propertyCases = 0;

function ignored(body: string, expect = ON): string {
  const r = parseLeaseComment(body, expect);
  assert.equal(r.kind, "ignored", `expected ignored, got ${JSON.stringify(r)}`);
  return (r as { reason: string }).reason;
}

describe("claims: lease comment", () => {
  it("round-trips a lease through render and parse", () => {
    const l = lease({ stage: "implement", state: "running", stageStartedAt: "2026-09-17T08:10:00.000Z" });
    const body = renderLeaseComment(l);
    assert.ok(body.startsWith(`${leaseMarker("acme/widgets", 12)}\n`));
    assert.match(body.split("\n")[1]!, /^\*\*Claimed\*\* by @bob on `x` \(machine\)/);
    assert.deepEqual(parseLeaseComment(body, ON), { kind: "lease", lease: l, finished: false });
  });

  it("reads a finished marker, and the older bare **Finished** line, as a finished record", () => {
    const fin = renderLeaseComment(lease({ state: "finished" }));
    assert.ok(fin.includes(FINISHED_MARKER));
    const r = parseLeaseComment(fin, ON);
    assert.equal(r.kind, "lease");
    assert.equal(r.kind === "lease" && r.finished, true);

    const legacy = `${leaseMarker("acme/widgets", 12)}\n**Finished** 2026-09-07\n`;
    assert.deepEqual(parseLeaseComment(legacy, ON), { kind: "finished-legacy" });

    // A live lease with a finished line added later: the marker wins, it is a record.
    const patched = leaseBody().replace("\n```json", "\n**Finished** by hand\n```json");
    const p = parseLeaseComment(patched, ON);
    assert.equal(p.kind === "lease" && p.lease.state, "finished");
  });

  it("reads only the region before the first <details> (docs/claims.md, The lease comment)", () => {
    const body = `${leaseBody()}\n\n<details><summary>plan</summary>\n\n**Finished** is a word this plan happens to use.\n${FINISHED_MARKER}\n</details>`;
    const r = parseLeaseComment(body, ON);
    assert.equal(r.kind, "lease");
    assert.equal(r.kind === "lease" && r.finished, false);
    assert.equal(claimRegion(body).includes("<details>"), false);
  });

  it("ignores, with a reason, every kind of bad input", () => {
    const good = leaseBody();
    assert.match(ignored(good.slice(0, good.lastIndexOf("```"))), /missing or truncated/);
    assert.match(ignored(good.replace('"nonce"', '"nonce" oops')), /malformed lease JSON/);
    assert.match(ignored(leaseBody({ issue: 13 }).replace("acme/widgets#13", "acme/widgets#12")), /names acme\/widgets#13/);
    assert.match(ignored(leaseBody(), { repo: "acme/widgets", issue: 99 }), /marker names acme\/widgets#12/);
    assert.match(ignored(good.replace("ticket-runner:lease acme", "ticket-runner:lease vX acme")), /unparseable marker version/);
    assert.match(ignored(good.replace("acme/widgets#12 -->", "acme/widgets#12")), /unparseable lease marker/);
    assert.match(ignored(`<details>\n${good}\n</details>`), /quoted inside <details>/);
    assert.match(ignored(`> quoting:\n${good}`), /not on the first line/);
    assert.match(ignored(good + "\n" + "x".repeat(65_536)), /over GitHub's 65536/);
    for (const n of ["0", "-3", "1.5", "012", "1e3", "+4", "99999999999999999999"]) {
      assert.match(ignored(good.replace("acme/widgets#12 -->", `acme/widgets#${n} -->`)), /not a positive integer|unparseable/, n);
    }
    assert.match(ignored(good.replace('"state": "claimed"', '"state": "dancing"')), /schema at state/);
    assert.deepEqual(parseLeaseComment("just a comment", ON), { kind: "none" });
  });

  it("reads a lease of a newer version, marker or JSON, as a hold it cannot judge, unless it is marked finished (ADR 0421)", () => {
    const good = leaseBody();
    const newerMarker = parseLeaseComment(good.replace("ticket-runner:lease acme", "ticket-runner:lease v2 acme"), ON);
    assert.equal(newerMarker.kind, "newer");
    assert.equal(newerMarker.kind === "newer" && newerMarker.version, 2);
    assert.match(newerMarker.kind === "newer" ? newerMarker.reason : "", /marker version 2 is newer/);
    const newerJson = parseLeaseComment(good.replace(/"version": 1/, '"version": 7'), ON);
    assert.equal(newerJson.kind, "newer");
    assert.equal(newerJson.kind === "newer" && newerJson.version, 7);
    // Whatever else a newer lease holds, what this build cannot read is not a reason to ignore it.
    assert.equal(
      parseLeaseComment(good.replace(/"version": 1/, '"version": 2, "shape": "new"').replace('"state": "claimed"', '"state": "dancing"'), ON).kind,
      "newer",
    );
    assert.deepEqual(parseLeaseComment(`${good.replace(/"version": 1/, '"version": 2')}\n${FINISHED_MARKER}`, ON), { kind: "finished-legacy" });
    // A newer marker still has to name this issue; one quoted or naming another issue is ignored as before.
    assert.match(ignored(good.replace("ticket-runner:lease acme/widgets#12", "ticket-runner:lease v2 acme/widgets#13")), /marker names acme\/widgets#13/);
    assert.match(ignored(`> quoting:\n${good.replace(/"version": 1/, '"version": 2')}`), /not on the first line/);
  });

  it("parses ticket numbers only in canonical positive form", () => {
    assert.equal(parseTicketNumber("12"), 12);
    for (const bad of ["", "0", "-1", "1.0", "01", " 1", "1 ", "abc", "1e2", "9007199254740993"]) assert.equal(parseTicketNumber(bad), null, bad);
  });

  describe("properties (fast-check)", () => {
    const text = fc.string({ unit: "binary", maxLength: 60 });
    const leaseArb: fc.Arbitrary<Lease> = fc.record({
      version: fc.constant(1),
      repo: fc.constant("acme/widgets"),
      issue: fc.constant(12),
      host: fc.record({
        id: text.filter((s) => s.length > 0),
        name: text.filter((s) => s.length > 0),
        kind: fc.constantFrom("workstation" as const, "cloud" as const),
      }),
      session: text.filter((s) => s.length > 0),
      run: text.filter((s) => s.length > 0),
      holder: fc.constantFrom("person" as const, "machine" as const),
      user: text.filter((s) => s.length > 0),
      claimedAt: fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
      expiresAt: fc.option(
        fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
        { nil: null },
      ),
      nonce: fc.string({ minLength: 8, maxLength: 64 }),
      state: fc.constantFrom(
        "claimed" as const,
        "running" as const,
        "race-yielded" as const,
        "released" as const,
        "handed-off" as const,
        "superseded" as const,
      ),
    });

    it("render then parse gives the same lease back, whatever the strings hold", () => {
      fc.assert(
        fc.property(leaseArb, (l) => {
          propertyCases++;
          const r = parseLeaseComment(renderLeaseComment(l), ON);
          // fast-check builds null-prototype records; compare plain data.
          assert.deepEqual(r, { kind: "lease", lease: JSON.parse(JSON.stringify(l)), finished: false });
        }),
        { numRuns: RUNS },
      );
    });

    it("never throws and never believes arbitrary text", () => {
      fc.assert(
        fc.property(fc.string({ unit: "binary", maxLength: 400 }), (s) => {
          propertyCases++;
          const r = parseLeaseComment(s, ON);
          assert.ok(["none", "ignored", "finished-legacy"].includes(r.kind) || r.kind === "lease");
          if (!s.includes("ticket-runner:lease")) assert.equal(r.kind, "none");
        }),
        { numRuns: RUNS },
      );
    });

    it("a truncated lease is never read as a lease", () => {
      fc.assert(
        fc.property(leaseArb, fc.double({ min: 0, max: 1, noNaN: true }), (l, f) => {
          propertyCases++;
          const body = renderLeaseComment(l);
          const cut = Math.floor(f * (body.lastIndexOf("```") - 1));
          assert.notEqual(parseLeaseComment(body.slice(0, cut), ON).kind, "lease");
        }),
        { numRuns: RUNS },
      );
    });

    it("a marker or lease quoted after <details>, or after anything, never counts", () => {
      fc.assert(
        fc.property(leaseArb, fc.string({ maxLength: 80 }), (l, before) => {
          propertyCases++;
          const quoted = `${before}\n<details>\n${renderLeaseComment(l)}\n</details>`;
          assert.notEqual(parseLeaseComment(quoted, ON).kind, "lease");
        }),
        { numRuns: RUNS },
      );
    });

    it("random edits of a valid comment give a lease, a record or an ignore, never a throw or a foreign lease", () => {
      fc.assert(
        fc.property(leaseArb, fc.nat(), fc.string({ unit: "binary", maxLength: 8 }), (l, at, insert) => {
          propertyCases++;
          const body = renderLeaseComment(l);
          const i = at % (body.length + 1);
          const r = parseLeaseComment(body.slice(0, i) + insert + body.slice(i + 1), ON);
          if (r.kind === "lease") {
            assert.equal(r.lease.issue, 12);
            assert.equal(r.lease.repo.toLowerCase(), "acme/widgets");
          }
        }),
        { numRuns: RUNS },
      );
    });

    after(() => {
      console.log(`      fast-check: ${propertyCases} generated cases across the lease/marker parser properties`);
    });
  });
});
