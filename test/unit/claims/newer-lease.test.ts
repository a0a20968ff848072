import assert from "node:assert/strict";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import { FINISHED_MARKER } from "../../../src/core/claims/marker";
import type { Lease } from "../../../src/core/schemas/lease";
import { leaseBody, makeWorld, refusal, type World } from "./claims-fixtures";

/** A lease as a newer Ticket Runner might write it: a version this build does not read, and a field it does not know. */
function newerLeaseBody(over: Partial<Lease>): string {
  return leaseBody(over).replace(/"version": 1/, '"version": 2,\n  "handover": { "to": "a field this build does not know" }');
}

const READS = /^(read|get|list|permission|viewer|labelActors)/;

describe("claims: a lease written by a newer Ticket Runner holds the ticket (ADR 0421)", () => {
  let w: World;
  beforeEach(() => {
    w = makeWorld();
    w.gh.addUser("alice", "write");
    w.gh.addUser("bob", "write");
    w.gh.addUser("mallory", "read");
  });
  afterEach(() => w.cleanup());

  it("a claim, and a person's take-over, are refused with the lease's link and the update command; nothing is written", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const posted = w.gh.postComment(n, "bob", newerLeaseBody({ issue: n, user: "bob" }));
    const before = w.gh.requests.length;
    const r = await refusal(w.claimer({ user: "alice", host: "m1" }).gate.take(n));
    assert.equal(r.reason, "newer-lease");
    assert.equal(r.details.link, posted.url);
    assert.match(r.message, /@bob wrote with a newer Ticket Runner \(lease version 2, this build reads 1\)/);
    assert.equal(r.details.next, "git pull && npm ci && npm run build");
    const person = await refusal(w.claimer({ user: "alice", host: "desk", holder: "person" }).gate.take(n, { takeOver: true }));
    assert.equal(person.reason, "newer-lease", "a take-over could not name the lease it displaces, so it is refused too");
    assert.match(person.message, /refused to take it over/);
    assert.deepEqual(
      w.gh.requests.slice(before).filter((q) => !READS.test(q.method)),
      [],
    );
    assert.deepEqual(w.gh.issue(n).labels, ["ready-for-agent"]);
    assert.equal(w.gh.commentsOn(n).length, 1);
  });

  it("the Run's view: the claim is lost with the refusal, not an error", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    w.gh.postComment(n, "bob", newerLeaseBody({ issue: n, user: "bob" }));
    const a = await w.claimer({ user: "alice", host: "m1" }).gate.claim(n);
    assert.equal(a.kind === "lost" && a.refusal?.reason, "newer-lease");
  });

  it("one from a commenter without write access is ignored like any other of theirs: the claim goes through", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    w.gh.postComment(n, "mallory", newerLeaseBody({ issue: n, user: "mallory" }));
    const won = await w.claimer({ user: "alice", host: "m1" }).gate.take(n);
    assert.equal(won.claim.ticket, n);
    assert.ok(w.log.has("no write access"));
  });

  it("one marked finished is a record, as in every version: the claim goes through", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    w.gh.postComment(n, "bob", `${newerLeaseBody({ issue: n, user: "bob", state: "finished" })}\n${FINISHED_MARKER}`);
    const won = await w.claimer({ user: "alice", host: "m1" }).gate.take(n);
    assert.equal(won.claim.ticket, n);
  });

  it("a held claim stands down at its next read when one turns up, even one that landed after it: it may be a take-over naming ours", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = w.claimer({ user: "alice", host: "m1" });
    const won = await a.gate.take(n);
    assert.equal(await a.gate.heartbeat(won.claim), "held");
    const takeover = { kind: "take-over" as const, from: won.claim.lease.nonce, at: w.clock.now().toISOString() };
    const body = newerLeaseBody({ issue: n, user: "bob", takeover });
    const newer = w.gh.postComment(n, "bob", body);
    assert.equal(await a.gate.heartbeat(won.claim), "yield");
    assert.match(won.claim.stoodDown!.why, /newer Ticket Runner \(version 2\)/);
    const ours = w.gh.commentsOn(n).find((c) => c.id === won.claim.commentId)!;
    const parsed = parseLeaseComment(ours.body, { repo: "acme/widgets", issue: n });
    assert.equal(parsed.kind === "lease" && parsed.lease.state, "race-yielded");
    assert.ok(w.log.has("a lease from a newer Ticket Runner holds this ticket"));
    assert.equal(w.gh.commentsOn(n).find((c) => c.id === newer.id)!.body, body, "the newer lease is never written by this build");
  });

  it("release and resume are refused with the same way out, and change nothing", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = w.claimer({ user: "alice", host: "m1" });
    await a.gate.take(n);
    w.gh.postComment(n, "bob", newerLeaseBody({ issue: n, user: "bob" }));
    const before = w.gh.requests.length;
    const released = await refusal(w.claimer({ user: "alice", host: "desk", holder: "person" }).gate.releaseByHand(n));
    assert.equal(released.reason, "newer-lease");
    assert.match(released.message, /refused to release it/);
    const resumed = await refusal(w.claimer({ user: "alice", host: "m1" }).gate.resume(n));
    assert.equal(resumed.reason, "newer-lease");
    assert.deepEqual(
      w.gh.requests.slice(before).filter((q) => !READS.test(q.method)),
      [],
    );
  });
});
