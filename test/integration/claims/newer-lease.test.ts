/**
 * A lease a newer Ticket Runner wrote holds the ticket for this build (ADR 0421), end to end: real
 * CLI processes in their own clones, the sandbox over HTTP, the newer lease posted through the real
 * Octokit tracker as a newer Host would post it. `start`, `start --take-over` and `release` are
 * refused (exit 2) with the lease's link and the update command, and change nothing; `board` shows
 * the ticket as claimed elsewhere.
 */
import assert from "node:assert/strict";
import { renderLeaseComment } from "../../../src/core/claims/lease-comment";
import type { Lease } from "../../../src/core/schemas/lease";
import { FULL, useClaimsSandbox } from "./claims-sandbox";
import { boardOf, said, usePeople } from "./people";

/** What a newer build's lease might look like: a version this build does not read and a field it does not know. */
function newerLease(issue: number, over: Partial<Lease> = {}): string {
  const lease: Lease = {
    version: 1,
    repo: FULL,
    issue,
    host: { id: "newer-host-id", name: "newer-box", kind: "cloud" },
    session: "newer-session",
    run: "newer-run",
    holder: "machine",
    user: "alice",
    claimedAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 45 * 60_000).toISOString(),
    nonce: "nnnnnnnnnnnnnnnn",
    state: "claimed",
    ...over,
  };
  return renderLeaseComment(lease).replace(/"version": 1/, '"version": 2,\n  "lanes": { "shared": true }');
}

describe("claims (integration): a lease a newer Ticket Runner wrote holds the ticket (ADR 0421)", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write", bob: "write", boss: "admin" } });
  const people = usePeople(s, ["bob", "boss"]);

  it("start and a person's take-over are refused, exit 2, with the lease's link and the update command; the board shows who holds it", async () => {
    const n = await s.issue("held by a newer build");
    const posted = await s.tracker("alice").createComment(n, newerLease(n));
    const before = await boardOf(s, n);
    for (const [user, args] of [
      ["bob", ["start", String(n)]],
      ["boss", ["start", String(n), "--take-over"]],
    ] as const) {
      const r = await people.cli(user, [...args]);
      assert.equal(r.code, 2, said(r));
      assert.match(r.stderr, /is held by a lease @alice wrote with a newer Ticket Runner \(lease version 2, this build reads 1\)/, said(r));
      assert.ok(r.stderr.includes(`Lease: ${posted.url}`), said(r));
      assert.ok(r.stderr.includes("git pull && npm ci && npm run build"), said(r));
    }
    assert.equal(await boardOf(s, n), before, "nothing was written");
    const board = await people.cli("bob", ["board"]);
    assert.equal(board.code, 0, said(board));
    assert.match(board.stdout, new RegExp(`#${n}\\b.*newer Ticket Runner · alice`), said(board));
  });

  it("bob's own claim: his release is refused once a newer lease is on the ticket, and nothing changes", async () => {
    const n = await s.issue("bob's, then a newer build's");
    const started = await people.cli("bob", ["claim", String(n)]);
    assert.equal(started.code, 0, said(started));
    await s.tracker("alice").createComment(n, newerLease(n, { takeover: { kind: "take-over", from: "some-nonce-of-bob", at: new Date().toISOString() } }));
    const before = await boardOf(s, n);
    const r = await people.cli("bob", ["release", String(n)]);
    assert.equal(r.code, 2, said(r));
    assert.match(r.stderr, /refused to release it and changed nothing/, said(r));
    assert.equal(await boardOf(s, n), before);
  });
});
