import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import { LAGGING_READS } from "../../../src/core/claims/lifecycle";
import type { Refusal } from "../../../src/core/errors";
import { leaseBody, makeWorld, refusal, type World } from "./claims-fixtures";

function leasesOn(w: World, issue: number) {
  return w.gh.commentsOn(issue).map((c) => ({ c, p: parseLeaseComment(c.body, { repo: "acme/widgets", issue }) }));
}

describe("claims: protocol (fake GitHub, real run roots)", () => {
  let w: World;
  beforeEach(() => {
    w = makeWorld();
    w.gh.addUser("alice", "write");
    w.gh.addUser("bob", "write");
    w.gh.addUser("mallory", "read");
  });
  afterEach(() => w.cleanup());

  it("claims a ready ticket: board claim, one lease comment, run.json with the comment id; 2 round trips, read-back included", async () => {
    const n = w.gh.addIssue({ title: "flaky build", labels: ["ready-for-agent"], by: "alice" });
    const { gate, root } = w.claimer({ user: "alice", host: "m1" });
    const before = w.gh.requestCount("alice");
    const won = await gate.take(n);
    const issue = w.gh.issue(n);
    assert.deepEqual(issue.labels.sort(), ["claim:m1", "in-progress"]);
    assert.deepEqual(issue.assignees, ["alice"]);
    const leases = leasesOn(w, n);
    assert.equal(leases.length, 1);
    assert.equal(leases[0]!.p.kind, "lease");
    const run = JSON.parse(readFileSync(join(root.dirFor(w.gh.repo, n), "run.json"), "utf8"));
    assert.equal(run.commentId, won.claim.commentId);
    // read (issue + comments + viewer + label events + body edits in one), then the write whose answer is the read-back (ADR 0380).
    const calls = w.gh.requests.slice(before).map((r) => r.method);
    assert.deepEqual(calls, ["readIssueThread", "writeIssueReadBack"]);
    assert.equal(w.clock.advancedMs, 0, "nothing to wait for: the write's answer is the read-back");
    assert.equal(won.claim.confirmAfter, w.clock.now().getTime() + 1500, "the claim's next read waits a settle after the write");
  });

  it("refuses a second start on the same Host with the run dir and the resume command", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const shared = join(w.dir, "shared-root");
    await w.claimer({ user: "alice", host: "m1", root: shared, holder: "person" }).gate.take(n);
    const r = await refusal(w.claimer({ user: "alice", host: "m1", root: shared, holder: "person" }).gate.take(n));
    assert.equal(r.reason, "claimed-locally");
    assert.match(r.message, /issue-1/);
    assert.equal(r.details.next, "ticket-runner resume 1");
  });

  it("an empty run.json (an older version killed mid-create) is refused with the take-over command, which archives it and wins", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const shared = join(w.dir, "shared-root");
    const dir = w.claimer({ user: "alice", host: "m1", root: shared }).root.dirFor(w.gh.repo, n);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "run.json"), "");
    const r = await refusal(w.claimer({ user: "alice", host: "m1", root: shared }).gate.take(n));
    assert.equal(r.reason, "claimed-locally");
    assert.match(r.message, /run\.json is empty/);
    assert.equal(r.details.next, `ticket-runner start ${n} --take-over`);
    assert.equal(readFileSync(join(dir, "run.json"), "utf8"), "", "the refusal changes nothing");
    const won = await w.claimer({ user: "alice", host: "m1", root: shared, holder: "person" }).gate.take(n, { takeOver: true });
    assert.equal(JSON.parse(readFileSync(join(dir, "run.json"), "utf8")).commentId, won.claim.commentId);
    const archived = readdirSync(join(dir, "superseded"));
    assert.equal(archived.length, 1);
    assert.equal(readFileSync(join(dir, "superseded", archived[0]!, "run.json"), "utf8"), "", "the broken file is kept, not deleted");
  });

  it("refuses another Host's live claim with the comment URL, holder, expiry and the take-over command", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = await w.claimer({ user: "alice", host: "m1" }).gate.take(n);
    const r = await refusal(w.claimer({ user: "bob", host: "m3" }).gate.take(n));
    assert.equal(r.reason, "claimed-elsewhere");
    assert.equal(r.details.link, a.claim.commentUrl);
    assert.match(r.message, /@alice on host "m1" \(machine/);
    assert.match(r.message, /expires/);
    assert.equal(r.details.next, `ticket-runner start ${n} --take-over`);
  });

  for (const sameUser of [false, true]) {
    it(`two Hosts that both missed each other's write: exactly one wins, the loser yields and undoes only its own (${sameUser ? "same user" : "two users"})`, async () => {
      const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
      const userB = sameUser ? "alice" : "bob";
      // Both first reads see an untouched issue (GitHub's eventual consistency, by hand).
      w.gh.pinView("alice");
      if (!sameUser) w.gh.pinView("bob");
      w.gh.beforeRequest = (user, method) => {
        if (method === "writeIssueReadBack") w.gh.unpinView(user);
      };
      const a = w.claimer({ user: "alice", host: "m1", nonce: "aaaa0000" });
      const b = w.claimer({ user: userB, host: "m3", nonce: "bbbb0000" });
      const results = await Promise.allSettled([a.gate.take(n), b.gate.take(n)]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason as Refusal);
      assert.equal(won.length, 1, "exactly one winner");
      assert.equal(lost.length, 1);
      assert.equal(lost[0]!.reason, "race-yielded");
      // Which one wins depends on when each stamped claimedAt (then the nonce); the rest follows from it.
      const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof a.gate.take>>>).value.claim.lease;
      const loser = winner.host.name === "m1" ? b : a;
      const issue = w.gh.issue(n);
      assert.deepEqual(issue.labels.sort(), [`claim:${winner.host.name}`, "in-progress"], "winner keeps in-progress + its host label; ready stays off");
      assert.deepEqual(issue.assignees, [winner.user], "only the winner's user stays assigned");
      const states = leasesOn(w, n).map((l) => (l.p.kind === "lease" ? l.p.lease.state : l.p.kind));
      assert.deepEqual(states.sort(), ["claimed", "race-yielded"]);
      // The loser's local claim moved aside, not deleted.
      const loserDir = loser.root.dirFor(w.gh.repo, n);
      assert.equal(existsSync(join(loserDir, "run.json")), false);
      const archived = readdirSync(join(loserDir, "superseded"));
      assert.equal(archived.length, 1);
      assert.ok(existsSync(join(loserDir, "superseded", archived[0]!, "run.json")));
    });
  }

  it("a write whose answer lags (it shows neither rival nor itself): the later claim yields at its next read, a settle on", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = w.claimer({ user: "alice", host: "m1", nonce: "aaaa0000" });
    const b = w.claimer({ user: "bob", host: "m3", nonce: "bbbb0000" });
    // Bob sees nothing of Alice until we say so, even after his own write.
    w.gh.pinView("bob");
    const aWon = await a.gate.take(n);
    // Bob's write lands on the live state, but his reads stay pinned to before Alice's claim.
    const bWon = await b.gate.take(n).catch((e: unknown) => e);
    // Bob's pinned view lacks Alice's lease; his own write is counted from the response: he "wins" locally.
    assert.ok(!(bWon instanceof Error), "bob believed he won");
    w.gh.unpinView("bob");
    const claimB = (bWon as Awaited<ReturnType<typeof b.gate.take>>).claim;
    const before = w.clock.advancedMs;
    assert.equal(await b.gate.recheck(claimB), "yield");
    assert.equal(w.clock.advancedMs - before, 1500, "the first read after a claim comes a settle after its write");
    assert.equal(await a.gate.recheck(aWon.claim), "held");
    assert.deepEqual(w.gh.issue(n).assignees, ["alice"]);
    assert.ok(w.gh.issue(n).labels.includes("in-progress"));
  });

  it("a claim whose first read lags past the settle (it does not show the claim's own lease) reads again, holds, and writes on", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const bob = w.claimer({ user: "bob", host: "m3", nonce: "bbbb0000" });
    // Bob's reads lag behind his own write until his second read after it.
    w.gh.pinView("bob");
    const won = await bob.gate.take(n);
    let reads = 0;
    w.gh.beforeRequest = (user, method) => {
      if (user === "bob" && method === "readIssueThread" && ++reads === 2) w.gh.unpinView("bob");
    };
    const before = w.clock.advancedMs;
    assert.equal(await bob.gate.recheck(won.claim), "held", "a read that lags our own write is no sign our lease is gone");
    assert.equal(reads, 2, "one more read, once the first did not show our lease");
    assert.equal(w.clock.advancedMs - before, 3000, "the second read came a settle after the first");
    const states = leasesOn(w, n).map((l) => (l.p.kind === "lease" ? `${l.p.lease.user}:${l.p.lease.state}` : l.p.kind));
    assert.deepEqual(states, ["bob:claimed"]);
    assert.equal(await bob.gate.recheck(won.claim), "held");
    assert.equal(reads, 3, "later reads are judged as they come");
  });

  it("a claim whose own lease never shows in its reads (lagging for good, or deleted by hand) stands down after a bounded number of reads", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const bob = w.claimer({ user: "bob", host: "m3", nonce: "bbbb0001" });
    w.gh.pinView("bob");
    const won = await bob.gate.take(n);
    let reads = 0;
    w.gh.beforeRequest = (user, method) => {
      if (user === "bob" && method === "readIssueThread") reads++;
    };
    assert.equal(await bob.gate.recheck(won.claim), "yield");
    assert.equal(reads, 1 + LAGGING_READS);
  });

  it("a person's claim whose write answer lagged reads once more, a settle on, and stands down before it is handed over", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    // Bob's reads and his write's answer lag behind Alice's claim until a settle has passed.
    w.gh.pinView("bob");
    await w.claimer({ user: "alice", host: "m1" }).gate.take(n);
    const bob = w.claimer({ user: "bob", host: "m3", holder: "person" });
    let wrote = false;
    w.gh.beforeRequest = (user, method) => {
      if (user !== "bob") return;
      if (method === "writeIssueReadBack") wrote = true;
      else if (wrote && method === "readIssueThread") w.gh.unpinView("bob");
    };
    const before = w.clock.advancedMs;
    const r = await refusal(bob.gate.take(n));
    assert.equal(r.reason, "race-yielded");
    assert.equal(w.clock.advancedMs - before, 1500, "the confirming read came a settle after the write");
    const states = leasesOn(w, n).map((l) => (l.p.kind === "lease" ? `${l.p.lease.user}:${l.p.lease.state}` : l.p.kind));
    assert.deepEqual(states, ["alice:claimed", "bob:race-yielded"]);
    assert.deepEqual(w.gh.issue(n).assignees, ["alice"]);
    assert.equal(existsSync(join(bob.root.dirFor(w.gh.repo, n), "run.json")), false, "bob's local claim moved aside");
  });

  it("heartbeat renews expiresAt; an expired machine lease is taken over (takeover-stale) and its holder yields", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = w.claimer({ user: "alice", host: "m1" });
    const won = await a.gate.take(n);
    const firstExpiry = won.claim.lease.expiresAt!;
    w.clock.advance(30 * 60_000);
    assert.equal(await a.gate.heartbeat(won.claim), "held");
    assert.ok(Date.parse(won.claim.lease.expiresAt!) > Date.parse(firstExpiry));
    // m1 goes silent past its TTL.
    w.clock.advance(46 * 60_000);
    const b = w.claimer({ user: "bob", host: "m3" });
    const taken = await b.gate.take(n);
    assert.equal(taken.claim.lease.takeover?.kind, "takeover-stale");
    assert.equal(taken.claim.lease.takeover?.from, won.claim.lease.nonce);
    const old = leasesOn(w, n).find((l) => l.c.id === won.claim.commentId)!;
    assert.equal(old.p.kind === "lease" && old.p.lease.state, "superseded");
    // m1 wakes up: its heartbeat finds the take-over and stands down.
    assert.equal(await a.gate.heartbeat(won.claim), "yield");
    assert.deepEqual(w.gh.issue(n).assignees, ["bob"]);
    assert.ok(w.gh.issue(n).labels.includes("claim:m3"));
    assert.ok(!w.gh.issue(n).labels.includes("claim:m1"));
  });

  it("a Run frozen past its TTL and taken over writes nothing more to its lease at its next Stage (ADR 0171)", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = w.claimer({ user: "alice", host: "m1" });
    const won = await a.gate.take(n);
    assert.equal(await a.gate.markStage(won.claim, "implement"), "held");
    w.clock.advance(46 * 60_000);
    await w.claimer({ user: "bob", host: "m3" }).gate.take(n);
    const body = () => w.gh.commentsOn(n).find((c) => c.id === won.claim.commentId)!.body;
    const superseded = body();
    assert.match(superseded, /"state": ?"superseded"/);
    const writes = w.gh.requests.length;
    // m1 wakes at the verify boundary: it reads, finds the take-over, and writes nothing.
    assert.equal(await a.gate.markStage(won.claim, "verify"), "yield");
    assert.equal(body(), superseded);
    const isWrite = (m: string) => !/^(read|get|list|permission|viewer|labelActors)/.test(m);
    assert.deepEqual(
      w.gh.requests.slice(writes).filter((r) => isWrite(r.method)),
      [],
    );
    assert.deepEqual(won.claim.stoodDown, { why: "a take-over displaced our lease", wrote: "nothing" });
    // Nor anything after: a stood-down claim is never read or written again.
    assert.equal(await a.gate.heartbeat(won.claim), "yield");
    const afterYield = w.gh.requests.length;
    await a.gate.handOff(won.claim);
    assert.equal(w.gh.requests.length, afterYield);
    assert.deepEqual(w.gh.issue(n).assignees, ["bob"]);
  });

  it("a write of the displaced Run that landed over the take-over's mark (frozen between its read and its write) is put back, and said", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = w.claimer({ user: "alice", host: "m1" });
    const won = await a.gate.take(n);
    w.clock.advance(46 * 60_000);
    await w.claimer({ user: "bob", host: "m3" }).gate.take(n);
    // Its checkpoint's write, read before the take-over, lands after it.
    const revived = leaseBody({ ...won.claim.lease, state: "running", stage: "verify" });
    await w.gh.client("alice").updateComment(won.claim.commentId, revived);
    assert.equal(await a.gate.recheck(won.claim), "yield");
    const back = leasesOn(w, n).find((l) => l.c.id === won.claim.commentId)!;
    assert.equal(back.p.kind === "lease" && back.p.lease.state, "superseded");
    assert.match(won.claim.stoodDown!.wrote, /superseded mark put back/);
  });

  it("a person's claim never goes stale for a machine", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const won = await w.claimer({ user: "alice", host: "desk", holder: "person" }).gate.take(n);
    assert.equal(won.claim.lease.expiresAt, null);
    w.clock.advance(30 * 24 * 60 * 60_000);
    const r = await refusal(w.claimer({ user: "bob", host: "vm" }).gate.take(n));
    assert.equal(r.reason, "claimed-elsewhere");
    assert.match(r.message, /never expires/);
  });

  it("ignores a fake lease from a commenter without write access, and logs why once (a claim reads twice, a heartbeat again)", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    w.gh.postComment(n, "mallory", leaseBody({ issue: n, user: "mallory", holder: "person", expiresAt: null, claimedAt: "2020-01-01T00:00:00.000Z" }));
    const { gate } = w.claimer({ user: "alice", host: "m1" });
    const won = await gate.take(n);
    assert.equal(won.claim.ticket, n);
    assert.equal(await gate.heartbeat(won.claim), "held");
    assert.equal(w.log.lines.filter((l) => l.message === "ignored a lease comment").length, 1);
    assert.ok(w.log.has("no write access"));
  });

  it("ignores a ready-for-agent label applied by a non-writer: a Run does not take the ticket", async () => {
    const n = w.gh.addIssue({ title: "t", by: "alice" });
    w.gh.label(n, "ready-for-agent", "mallory");
    const r = await refusal(w.claimer({ user: "alice", host: "m1" }).gate.take(n));
    assert.equal(r.reason, "untrusted");
    assert.match(r.message, /mallory/);
  });

  it("refuses a claimer without write access (its lease would be ignored everywhere else)", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const r = await refusal(w.claimer({ user: "mallory", host: "m9", holder: "person" }).gate.take(n));
    assert.equal(r.reason, "untrusted");
  });

  it("take-over: a person displaces a live claim, its local run moves to superseded/<ts>/; a machine may not", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const shared = join(w.dir, "one-host");
    const first = await w.claimer({ user: "alice", host: "m1", root: shared }).gate.take(n);
    const r = await refusal(w.claimer({ user: "bob", host: "m1", root: shared }).gate.take(n, { takeOver: true }));
    assert.equal(r.reason, "bad-input", "machines never take over");
    const person = w.claimer({ user: "bob", host: "m1", root: shared, holder: "person" });
    const won = await person.gate.take(n, { takeOver: true });
    assert.equal(won.claim.lease.takeover?.kind, "take-over");
    assert.ok(won.archived && existsSync(join(won.archived, "run.json")));
    assert.match(won.archived!, /superseded\/\d{4}-\d\d-\d\dT/);
    const old = leasesOn(w, n).find((l) => l.c.id === first.claim.commentId)!;
    assert.equal(old.p.kind === "lease" && old.p.lease.state, "superseded");
  });

  it("refuses a run directory whose run.json names another ticket, moving nothing", async () => {
    const a = w.gh.addIssue({ title: "a", labels: ["ready-for-agent"], by: "alice" });
    const b = w.gh.addIssue({ title: "b", labels: ["ready-for-agent"], by: "alice" });
    const c = w.claimer({ user: "alice", host: "m1", holder: "person" });
    const wonA = await c.gate.take(a);
    const r = await refusal(c.gate.take(b, { runDir: wonA.claim.runDir, takeOver: true }));
    assert.equal(r.reason, "run-dir-mismatch");
    assert.ok(existsSync(join(wonA.claim.runDir, "run.json")));
    assert.equal(existsSync(join(wonA.claim.runDir, "superseded")), false);
  });

  it("release: ready-for-agent on, in-progress off, unassigned last, lease released, local run moved aside", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const c = w.claimer({ user: "alice", host: "m1" });
    const won = await c.gate.take(n);
    await c.gate.release(won.claim);
    const issue = w.gh.issue(n);
    assert.deepEqual(issue.labels, ["ready-for-agent"]);
    assert.deepEqual(issue.assignees, []);
    const l = leasesOn(w, n)[0]!;
    assert.equal(l.p.kind === "lease" && l.p.lease.state, "released");
    assert.equal(existsSync(join(won.claim.runDir, "run.json")), false);
    // Released is a record: the ticket can be claimed again.
    const again = await w.claimer({ user: "bob", host: "m3" }).gate.take(n);
    assert.equal(again.claim.ticket, n);
  });

  it("finish writes the finished marker; a reopened issue is not refused by its own history", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const c = w.claimer({ user: "alice", host: "m1" });
    const won = await c.gate.take(n);
    await c.gate.finish(won.claim);
    const body = w.gh.commentsOn(n)[0]!.body;
    assert.ok(body.includes("<!-- ticket-runner:finished -->"));
    w.gh.label(n, "ready-for-agent", "alice");
    const again = await c.gate.take(n);
    assert.equal(again.claim.ticket, n);
  });

  it("adopt: re-enters this Host's stranded claim with the same lease (same nonce), after a dead run", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const root = join(w.dir, "m1");
    const first = await w.claimer({ user: "alice", host: "m1", root }).gate.take(n);
    const next = w.claimer({ user: "alice", host: "m1", root });
    const attempt = await next.gate.adopt(n);
    assert.equal(attempt.kind, "won");
    if (attempt.kind !== "won") return;
    assert.equal(attempt.claim.commentId, first.claim.commentId);
    assert.equal(attempt.claim.lease.nonce, first.claim.lease.nonce);
    assert.equal(attempt.claim.lease.session, next.gate.session);
    assert.equal(readdirSync(join(first.claim.runDir, "superseded")).length, 1, "the dead run's run.json was moved aside");
  });

  it("the agent sessions a Run noted in its local claim go with the adopt to the next session on this Host; none is noted after the claim ended (ADR 0452)", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const root = join(w.dir, "m1");
    const killed = w.claimer({ user: "alice", host: "m1", root });
    const first = await killed.gate.take(n);
    await killed.gate.noteSessions(first.claim, { implement: "sess-1", bogus: "not a Stage" });
    const noted = await killed.root.read(first.claim.runDir);
    assert.ok(noted.kind === "ok");
    assert.deepEqual(noted.run.sessions?.stages, { implement: "sess-1" }, "only the Stages the schema knows");

    const next = w.claimer({ user: "alice", host: "m1", root });
    const attempt = await next.gate.adopt(n);
    assert.ok(attempt.kind === "won");
    assert.deepEqual(attempt.claim.sessions?.stages, { implement: "sess-1" }, "the adopt carries them");
    const carried = await next.root.read(attempt.claim.runDir);
    assert.ok(carried.kind === "ok" && carried.run.session === next.gate.session);
    assert.deepEqual(carried.run.sessions?.stages, { implement: "sess-1" }, "into the new session's run.json too");

    // The displaced session's note is not ours any more: it edits nothing.
    await killed.gate.noteSessions(first.claim, { implement: "sess-old" });
    const untouched = await next.root.read(attempt.claim.runDir);
    assert.ok(untouched.kind === "ok" && untouched.run.sessions?.stages.implement === "sess-1");

    await next.gate.finish(attempt.claim);
    await next.gate.noteSessions(attempt.claim, { verify: "sess-2" });
    assert.equal((await next.root.read(attempt.claim.runDir)).kind, "none", "an ended claim's run.json is not brought back by a late note");
  });

  for (const holder of ["machine", "person"] as const) {
    it(`a ${holder}'s run.json left on this Host with no lease (killed before its write): ${holder === "machine" ? "moved aside, the Run claims" : "still refused, resume it"}`, async () => {
      const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
      const c = w.claimer({ user: "alice", host: "m1" });
      const dir = c.root.dirFor(w.gh.repo, n);
      await c.root.create(dir, {
        version: 1,
        repo: "acme/widgets",
        issue: n,
        host: { id: "host-m1", name: "m1", kind: "cloud" },
        session: "dead-session",
        run: "dead-run",
        pid: 4242,
        startedAt: new Date(0).toISOString(),
        holder,
        commentId: null,
        worktree: null,
        branch: null,
        offline: false,
      });
      if (holder === "person") {
        const refused = await refusal(c.gate.take(n));
        assert.equal(refused.reason, "claimed-locally");
        assert.equal(leasesOn(w, n).length, 0);
        return;
      }
      const won = await c.gate.take(n);
      assert.equal(won.claim.ticket, n);
      assert.equal(readdirSync(join(dir, "superseded")).length, 1, "the dead Run's files were moved aside, not deleted");
      assert.equal(leasesOn(w, n).length, 1);
    });
  }

  it("a claim write whose response is lost: the read-back finds the lease and the claim stands (never written twice)", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    w.gh.loseResponseNext("writeIssueReadBack");
    const won = await w.claimer({ user: "alice", host: "m1" }).gate.take(n);
    assert.equal(leasesOn(w, n).length, 1);
    assert.equal(won.claim.commentId, w.gh.commentsOn(n)[0]!.id);
  });

  it("a claim write that failed outright: nothing started, the local claim moved aside, a Failure (not a refusal)", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    w.gh.failNext("writeIssueReadBack");
    const c = w.claimer({ user: "alice", host: "m1" });
    await assert.rejects(c.gate.take(n), (e: Error) => e.name === "Failure");
    const dir = c.root.dirFor(w.gh.repo, n);
    assert.equal(existsSync(join(dir, "run.json")), false);
    assert.equal(readdirSync(join(dir, "superseded")).length, 1);
    // And the next attempt goes through.
    assert.equal((await c.gate.take(n)).claim.ticket, n);
  });

  it("claim() reports a refusal as lost (the Run's view), with the link", async () => {
    const n = w.gh.addIssue({ title: "t", labels: ["ready-for-agent"], by: "alice" });
    const a = await w.claimer({ user: "alice", host: "m1" }).gate.claim(n);
    assert.equal(a.kind, "won");
    const b = await w.claimer({ user: "bob", host: "m3" }).gate.claim(n);
    assert.equal(b.kind, "lost");
    assert.ok(b.kind === "lost" && b.link?.includes("issuecomment"));
    const bad = await w.claimer({ user: "bob", host: "m3" }).gate.claim(0);
    assert.equal(bad.kind === "lost" && bad.refusal?.reason, "bad-input");
  });
});
