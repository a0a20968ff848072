/**
 * With host labels on, ending a claim takes off the `claim:<host>` label of the Host named in the
 * lease, not the one of the Host doing the ending: a release from another Host left it behind.
 */
import assert from "node:assert/strict";
import { makeWorld, type World } from "./claims-fixtures";

describe("claims: ending a claim removes the lease's Host label", () => {
  let w: World;
  beforeEach(() => {
    w = makeWorld();
    w.gh.addUser("alice", "write");
  });
  afterEach(() => w.cleanup());

  it("alice's claim from vm-1, released by hand from her laptop: claim:vm-1 comes off, nothing else is left", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    await w.claimer({ user: "alice", host: "vm-1" }).gate.take(n);
    assert.deepEqual([...w.gh.issue(n).labels].sort(), ["claim:vm-1", "in-progress"]);
    const report = await w.claimer({ user: "alice", host: "laptop", holder: "person" }).gate.releaseByHand(n);
    assert.match(report.summary, /marked released/);
    assert.deepEqual(w.gh.issue(n).labels, ["ready-for-agent"]);
  });

  it("released on its own Host: that Host's label comes off, as before", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const c = w.claimer({ user: "alice", host: "vm-1" });
    const won = await c.gate.take(n);
    await c.gate.release(won.claim);
    assert.deepEqual(w.gh.issue(n).labels, ["ready-for-agent"]);
  });
});
