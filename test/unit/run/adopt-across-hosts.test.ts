/**
 * A Run holding the Target's Run lock adopts this user's Stranded machine claim written on another
 * Host (ADR 0076: the lock proves that Host's Run is gone). Without the option, and for a person's
 * claim, the other Host's live lease still refuses.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { createClaimGate } from "../../../src/core/claims/claim-protocol";
import { LABELS, makeWorld } from "../claims/claims-fixtures";
import type { World } from "../claims/claims-fixtures";

describe("Run: adopting a Stranded claim left on another Host", () => {
  let w: World;
  beforeEach(() => {
    w = makeWorld();
    w.gh.addUser("alice", "write");
  });
  afterEach(() => w.cleanup());

  function gateOnHostB(adoptAcrossHosts: boolean) {
    return createClaimGate({
      tracker: w.gh.client("alice"),
      runRoot: new FsRunRoot(join(w.dir, "root-b")),
      host: { id: "host-b", name: "b", kind: "cloud" },
      clock: w.clock,
      log: w.log,
      labels: LABELS,
      lease: { ttlMinutes: 45, heartbeatMinutes: 30, settleMs: 100 },
      holder: "machine",
      runId: "run-b",
      pid: 77,
      isAlive: async () => false,
      adoptAcrossHosts,
    });
  }

  it("adopts with adoptAcrossHosts, keeping the same lease (nonce) now on this Host", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const first = await w.claimer({ user: "alice", host: "a" }).gate.take(n);
    const attempt = await gateOnHostB(true).adopt(n);
    assert.equal(attempt.kind, "won");
    if (attempt.kind !== "won") return;
    assert.equal(attempt.claim.lease.nonce, first.claim.lease.nonce);
    assert.equal(attempt.claim.lease.host.id, "host-b");
  });

  it("refuses without the option, and never adopts a person's claim from another Host", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    await w.claimer({ user: "alice", host: "a" }).gate.take(n);
    assert.equal((await gateOnHostB(false).adopt(n)).kind, "lost");
    const m = w.gh.addIssue({ title: "u", labels: ["ready-for-agent"], by: "alice" });
    await w.claimer({ user: "alice", host: "a", holder: "person" }).gate.take(m);
    assert.equal((await gateOnHostB(true).adopt(m)).kind, "lost");
  });
});
