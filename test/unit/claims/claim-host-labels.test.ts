/**
 * With host labels on, a claim that ends another lease takes that lease's `claim:<host>` label off
 * in its own write: a take-over (a person's, or takeover-stale) and a Run adopting a Stranded claim
 * from another Host left the old Host's label next to the new holder's. A label a live lease still
 * names stays.
 */
import assert from "node:assert/strict";
import { leaseBody, makeWorld, type World } from "./claims-fixtures";

describe("claims: a claim that ends another lease takes off that lease's Host label", () => {
  let w: World;
  beforeEach(() => {
    w = makeWorld();
    w.gh.addUser("alice", "write");
    w.gh.addUser("bob", "write");
  });
  afterEach(() => w.cleanup());

  const labels = (n: number) => [...w.gh.issue(n).labels].sort();
  const writes = (user: string) => w.gh.requests.filter((r) => r.user === user && ["writeIssue", "writeIssueReadBack"].includes(r.method)).length;

  it("take-over: alice's claim from alice-laptop, taken over by bob on bob-laptop: only claim:bob-laptop is left, in the one claim write", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    await w.claimer({ user: "alice", host: "alice-laptop", holder: "person" }).gate.take(n);
    assert.deepEqual(labels(n), ["claim:alice-laptop", "in-progress"]);
    const won = await w.claimer({ user: "bob", host: "bob-laptop", holder: "person" }).gate.take(n, { takeOver: true });
    assert.equal(won.claim.lease.takeover?.kind, "take-over");
    assert.deepEqual(labels(n), ["claim:bob-laptop", "in-progress"]);
    assert.equal(writes("bob"), 1, "the labels ride in the claim's one write");
  });

  it("takeover-stale: vm-1's expired lease taken by a Run on vm-2: claim:vm-1 comes off", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    await w.claimer({ user: "alice", host: "vm-1" }).gate.take(n);
    w.clock.advance(46 * 60_000);
    const won = await w.claimer({ user: "alice", host: "vm-2" }).gate.take(n);
    assert.equal(won.claim.lease.takeover?.kind, "takeover-stale");
    assert.deepEqual(labels(n), ["claim:vm-2", "in-progress"]);
  });

  it("take-over on a Host of the same name: claim:vm-1 is the new holder's and stays", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    await w.claimer({ user: "alice", host: "vm-1" }).gate.take(n);
    await w.claimer({ user: "bob", host: "vm-1", holder: "person" }).gate.take(n, { takeOver: true });
    assert.deepEqual(labels(n), ["claim:vm-1", "in-progress"]);
  });

  it("adopting a Stranded claim from vm-1 on vm-2 (adoptAcrossHosts): claim:vm-1 comes off, claim:vm-2 goes on", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const first = await w.claimer({ user: "alice", host: "vm-1" }).gate.take(n);
    const attempt = await w.claimer({ user: "alice", host: "vm-2", adoptAcrossHosts: true }).gate.adopt(n);
    assert.equal(attempt.kind, "won");
    if (attempt.kind !== "won") return;
    assert.equal(attempt.claim.lease.nonce, first.claim.lease.nonce, "the same claim, now on vm-2");
    assert.deepEqual(labels(n), ["claim:vm-2", "in-progress"]);
  });

  it("adopting from vm-1 while another live lease names a Host vm-1: claim:vm-1 stays for that holder", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    await w.claimer({ user: "alice", host: "vm-1" }).gate.take(n);
    // A later lease from a Host also called vm-1 (a race's loser-to-be): live, so its label is needed.
    const at = w.clock.now();
    w.gh.postComment(
      n,
      "bob",
      leaseBody({
        issue: n,
        user: "bob",
        host: { id: "host-other-vm-1", name: "vm-1", kind: "cloud" },
        claimedAt: new Date(at.getTime() + 1000).toISOString(),
        expiresAt: new Date(at.getTime() + 45 * 60_000).toISOString(),
        nonce: "ffffffffffffffff",
      }),
    );
    const attempt = await w.claimer({ user: "alice", host: "vm-2", adoptAcrossHosts: true }).gate.adopt(n);
    assert.equal(attempt.kind, "won");
    assert.deepEqual(labels(n), ["claim:vm-1", "claim:vm-2", "in-progress"]);
  });

  it("adopting its own Stranded claim on the same Host changes no label", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const root = `${w.dir}/shared-vm-1`;
    await w.claimer({ user: "alice", host: "vm-1", root }).gate.take(n);
    const attempt = await w.claimer({ user: "alice", host: "vm-1", root }).gate.adopt(n);
    assert.equal(attempt.kind, "won");
    assert.deepEqual(labels(n), ["claim:vm-1", "in-progress"]);
  });
});
