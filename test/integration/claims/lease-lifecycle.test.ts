/**
 * Leases over time, against the sandbox with the real Octokit client: expiry and takeover-stale,
 * heartbeat renewal, a person's claim never stale, trust (a fake lease from a non-writer, a ready
 * label from a non-writer), and --offline making zero requests (the sandbox's request log).
 * Time is moved by giving a claimer a clock that runs ahead; everything else is real.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseLeaseComment, renderLeaseComment } from "../../../src/core/claims/lease-comment";
import { Refusal } from "../../../src/core/errors";
import { LEASE_VERSION } from "../../../src/core/schemas/lease";
import type { Clock } from "../../../src/ports/clock";
import { FULL, realClock, useClaimsSandbox } from "./claims-sandbox";
import { runCli } from "./cli-process";

function aheadBy(ms: number): Clock {
  return { now: () => new Date(Date.now() + ms), sleep: realClock.sleep };
}

async function refused(p: Promise<unknown>): Promise<Refusal> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Refusal) return e;
    throw e;
  }
  assert.fail("expected a refusal");
}

describe("claims (integration): the lease lifecycle", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox();

  async function leaseOf(n: number, commentId: string) {
    const c = (await s.tracker("alice").listComments(n)).find((x) => x.id === commentId)!;
    const p = parseLeaseComment(c.body, { repo: FULL, issue: n });
    assert.equal(p.kind, "lease");
    return p.kind === "lease" ? p.lease : null!;
  }

  it("heartbeat renews expiresAt; past the TTL another Host takes over (takeover-stale), recorded in both comments; the old holder yields", async () => {
    const n = await s.issue("stale one");
    const a = s.claimer({ user: "alice", host: "m1" });
    const won = await a.gate.take(n);
    const before = won.claim.lease.expiresAt!;
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await a.gate.heartbeat(won.claim), "held");
    const renewed = await leaseOf(n, won.claim.commentId);
    assert.ok(Date.parse(renewed.expiresAt!) > Date.parse(before), "expiresAt moved forward on GitHub");
    assert.ok(renewed.renewedAt);

    // Not yet expired: refused.
    const early = await refused(s.claimer({ user: "bob", host: "m3" }).gate.take(n));
    assert.equal(early.reason, "claimed-elsewhere");
    // 46 minutes later (m1 stopped heartbeating): taken over.
    const b = s.claimer({ user: "bob", host: "m3-late", clock: aheadBy(46 * 60_000) });
    const taken = await b.gate.take(n);
    assert.equal(taken.claim.lease.takeover?.kind, "takeover-stale");
    assert.equal(taken.claim.lease.takeover?.from, won.claim.lease.nonce);
    const old = await leaseOf(n, won.claim.commentId);
    assert.equal(old.state, "superseded");
    assert.equal(old.supersededBy, taken.claim.lease.nonce);
    // m1 comes back: its heartbeat finds the take-over and stands down; bob keeps the ticket.
    assert.equal(await a.gate.heartbeat(won.claim), "yield");
    const thread = await s.tracker("alice").readIssueThread(n);
    assert.deepEqual(thread!.issue.assignees, ["bob"]);
    assert.ok(thread!.issue.labels.includes("in-progress"));
  });

  it("a person's claim never goes stale for a machine, even a month later", async () => {
    const n = await s.issue("mine by hand");
    const won = await s.claimer({ user: "alice", host: "desk", holder: "person" }).gate.take(n);
    assert.equal(won.claim.lease.expiresAt, null);
    const r = await refused(s.claimer({ user: "bob", host: "vm", clock: aheadBy(30 * 24 * 3600_000) }).gate.take(n));
    assert.equal(r.reason, "claimed-elsewhere");
    assert.match(r.message, /never expires/);
  });

  it("ignores a fake lease posted by a commenter without write access (logged), and a ready label applied by one", async () => {
    const n = await s.issue("public issue");
    const fake = renderLeaseComment({
      version: LEASE_VERSION,
      repo: FULL,
      issue: n,
      host: { id: "evil", name: "evil", kind: "cloud" },
      session: "s",
      run: "r",
      holder: "person",
      user: "mallory",
      claimedAt: "2020-01-01T00:00:00.000Z",
      expiresAt: null,
      nonce: "0000000000000000",
      state: "claimed",
    });
    await s.tracker("mallory").createComment(n, fake);
    const won = await s.claimer({ user: "alice", host: "m1" }).gate.take(n);
    assert.equal(won.claim.ticket, n);
    assert.ok(s.log.has("no write access"), "the ignored lease is logged with its reason");

    // bob (a writer then) labels an issue ready, then loses write access: the label no longer counts.
    const m = await s.issue("labelled by bob", ["ready-for-agent"], "bob");
    await s.sandbox.admin.setRole("bob", FULL, "read");
    try {
      const r = await refused(s.claimer({ user: "alice", host: "m2" }).gate.take(m));
      assert.equal(r.reason, "untrusted");
      assert.match(r.message, /bob/);
    } finally {
      await s.sandbox.admin.setRole("bob", FULL, "write");
    }
  });

  it("--offline start and resume make no request at all (the sandbox's request log stays empty)", async () => {
    const clone = await s.clone("alice", "offline-clone", { base: "main", lease: { settleMs: 100 } });
    const env = { TICKET_RUNNER_TOKEN: s.tokens.alice!, TICKET_RUNNER_RUN_ROOT: join(s.dir, "offline-runs"), TICKET_RUNNER_HOST_SESSION: "offline-host" };
    const n = await s.issue("offline work");
    const online = await s.issue("started online");
    await s.sandbox.admin.clearRequestLog();
    const first = await runCli(["start", String(online)], { cwd: clone, env });
    assert.equal(first.code, 0, first.stderr);
    // The control: an online start shows up in the log, API and git alike.
    const seen = (await s.sandbox.admin.requestLog()).map((r) => `${r.method} ${r.path}`);
    assert.ok(
      seen.some((p) => p.includes("/graphql")),
      seen.join(", "),
    );
    assert.ok(
      seen.some((p) => p.includes(".git/")),
      seen.join(", "),
    );

    // The board read keeps the titles this Host saw; a ticket opened after it is unknown here.
    const board = await runCli(["board"], { cwd: clone, env });
    assert.equal(board.code, 0, board.stderr);
    const unseen = await s.issue("opened after the board read");

    await s.sandbox.admin.clearRequestLog();
    const off = await runCli(["start", String(n), "--offline"], { cwd: clone, env });
    assert.equal(off.code, 0, off.stderr);
    assert.match(off.stdout, /^Title: "offline work" \(as this Host last read it, /m);
    assert.match(off.stdout, new RegExp(`Worktree: .*ticket-${n} \\(branch agent/${n}-offline-work\\)`));
    const blind = await runCli(["start", String(unseen), "--offline"], { cwd: clone, env });
    assert.equal(blind.code, 0, blind.stderr);
    assert.match(
      blind.stdout,
      new RegExp(
        `^No title for #${unseen} is known on this Host \\(no board or online start on this Host has seen #${unseen}\\), so a new branch is named agent/${unseen}-ticket; rename it later with \`git branch -m\` if you like\\.$`,
        "m",
      ),
    );
    assert.match(blind.stdout, new RegExp(`\\(branch agent/${unseen}-ticket\\)`));
    // A run started online, resumed --offline: still no request.
    const res = await runCli(["resume", String(online), "--offline"], { cwd: clone, env });
    assert.equal(res.code, 0, res.stderr);
    const log = await s.sandbox.admin.requestLog();
    assert.deepEqual(log, [], `requests made: ${log.map((r) => `${r.method} ${r.path}`).join(", ")}`);

    // Back online, resume writes the lease the offline start could not.
    const back = await runCli(["resume", String(n)], { cwd: clone, env });
    assert.equal(back.code, 0, back.stderr);
    assert.match(back.stdout, /Lease: .*issuecomment/);
  });

  it("release puts the ticket back: ready-for-agent on, in-progress off, unassigned, lease released", async () => {
    const clone = await s.clone("alice", "release-clone", { lease: { settleMs: 100 } });
    const env = { TICKET_RUNNER_TOKEN: s.tokens.alice!, TICKET_RUNNER_RUN_ROOT: join(s.dir, "release-runs"), TICKET_RUNNER_HOST_SESSION: "release-host" };
    const n = await s.issue("give it back");
    assert.equal((await runCli(["claim", String(n)], { cwd: clone, env })).code, 0);
    const r = await runCli(["release", String(n)], { cwd: clone, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /moved to .*superseded/);
    const thread = await s.tracker("alice").readIssueThread(n);
    assert.deepEqual(thread!.issue.labels, ["ready-for-agent"]);
    assert.deepEqual(thread!.issue.assignees, []);
    const lease = thread!.comments.map((c) => parseLeaseComment(c.body, { repo: FULL, issue: n })).find((p) => p.kind === "lease");
    assert.equal(lease?.kind === "lease" && lease.lease.state, "released");
    // And a bad ticket number is refused before anything happens.
    const bad = await runCli(["release", "0"], { cwd: clone, env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a ticket number/);
  });
});
