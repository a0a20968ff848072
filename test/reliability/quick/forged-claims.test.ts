/**
 * Bad input, rows "forged leases and markers from non-collaborators", "a forged ready-for-agent
 * label" and "a huge comment": the sandbox over real HTTP, real Octokit, real run roots. mallory
 * has only `read` on the Target (anyone can comment on a public issue). Expected outcome:
 *   forged lease / finished marker / take-over / release -> ignored by the claim protocol and the
 *     board, each logged with "no write access"; the real holder keeps the ticket, nobody else gets it
 *   ready label last applied by a non-writer -> the Run's Frontier and a machine claim both refuse it
 *     (`untrusted`, naming who applied it)
 *   a comment over 65,536 characters -> never read as a lease; other leases on the issue still count
 */
import { strict as assert } from "node:assert";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { createGitHubBoard } from "../../../src/adapters/github/board-wiring";
import { NodeClock } from "../../../src/adapters/node-clock";
import { NodeHost } from "../../../src/adapters/node-host";
import type { BoardRow } from "../../../src/core/board/types";
import { parseLeaseComment, renderLeaseComment } from "../../../src/core/claims/lease-comment";
import { FINISHED_MARKER, leaseMarker, MAX_COMMENT_CHARS } from "../../../src/core/claims/marker";
import { eligibility, labelTrust } from "../../../src/core/run/frontier";
import { configSchema } from "../../../src/core/schemas/config";
import type { Lease } from "../../../src/core/schemas/lease";
import { FULL, LABELS, NAME, OWNER, useClaimsSandbox } from "../../integration/claims/claims-sandbox";
import { record } from "../support/figures";

const TEST = "test/reliability/quick/forged-claims.test.ts";

function forgedLease(issue: number, over: Partial<Lease> = {}): Lease {
  return {
    version: 1,
    repo: FULL,
    issue,
    host: { id: "cloud-evil", name: "evil", kind: "cloud" },
    session: "s-evil",
    run: "r-evil",
    holder: "person",
    user: "mallory",
    // Earlier than any real claim, and held "by a person": it would win every race and never go stale.
    claimedAt: "2020-01-01T00:00:00.000Z",
    expiresAt: null,
    nonce: "00000000evil",
    state: "claimed",
    ...over,
  };
}

describe("reliability: forged claims, forged labels and huge comments from non-collaborators", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write", bob: "write", mallory: "read", trudy: "write", tom: "write" } });
  let forged = 0;

  async function boardRow(n: number): Promise<BoardRow> {
    const b = createGitHubBoard({
      octokit: s.client("alice"),
      repo: { owner: OWNER, repo: NAME },
      host: new NodeHost({ env: { TICKET_RUNNER_HOST_NAME: "desk" } }),
      runRoot: new FsRunRoot(`${s.dir}/board-root`),
      labels: { ready: LABELS.ready, inProgress: LABELS.inProgress, human: LABELS.human },
      clock: new NodeClock(),
      log: s.log,
    });
    await b.refresher.refresh();
    for (const sec of b.refresher.view().model?.sections ?? []) for (const r of sec.rows) if (r.number === n) return r;
    assert.fail(`no board row for #${n}`);
  }

  it("a forged live lease is ignored: a machine claims the ticket, the board shows it free, with the reason", async () => {
    const n = await s.issue("forged lease target");
    await s.tracker("mallory").createComment(n, renderLeaseComment(forgedLease(n)));
    await s.tracker("mallory").createComment(n, `${leaseMarker(FULL, n)}\n${FINISHED_MARKER}\n**Finished** by @mallory.`);
    forged += 2;

    const row = await boardRow(n);
    assert.equal(row.section, "frontier");
    assert.equal(row.runColumn, "free");
    assert.match(row.notes.join(" "), /mallory, who has no write access/);

    const alice = s.claimer({ user: "alice", host: "a1" });
    const got = await alice.gate.claim(n);
    assert.equal(got.kind, "won", JSON.stringify(got));
    const reading = await alice.gate.read(n);
    assert.equal(reading.ignored.filter((i) => i.author === "mallory").length, 2);
    assert.ok(reading.ignored.every((i) => /no write access/.test(i.reason)));
  });

  it("forged finished / released / take-over records cannot free a live claim or displace its holder", async () => {
    const n = await s.issue("forged endings target");
    const alice = s.claimer({ user: "alice", host: "a2" });
    const got = await alice.gate.claim(n);
    assert.equal(got.kind, "won");
    if (got.kind !== "won") return;
    const real = got.claim.lease;
    const m = s.tracker("mallory");
    await m.createComment(n, renderLeaseComment({ ...real, state: "finished" }));
    await m.createComment(n, renderLeaseComment({ ...real, state: "released" }));
    await m.createComment(n, renderLeaseComment({ ...real, state: "handed-off" }));
    await m.createComment(
      n,
      renderLeaseComment(
        forgedLease(n, {
          nonce: "11111111evil",
          holder: "machine",
          expiresAt: "2099-01-01T00:00:00.000Z",
          claimedAt: new Date().toISOString(),
          takeover: { from: real.nonce, kind: "take-over", at: new Date().toISOString() },
        }),
      ),
    );
    forged += 4;

    // bob, a real collaborator on another Host, must still see alice's live claim.
    const bob = s.claimer({ user: "bob", host: "b2" });
    const attempt = await bob.gate.claim(n);
    assert.equal(attempt.kind, "lost");
    if (attempt.kind === "lost") assert.equal(attempt.refusal?.reason, "claimed-elsewhere", attempt.reason);
    // alice keeps it: her heartbeat and her pre-push re-check both say held.
    assert.equal(await alice.gate.heartbeat(got.claim), "held");
    assert.equal(await alice.gate.recheck(got.claim), "held");
    const row = await boardRow(n);
    assert.match(row.notes.join(" "), /mallory, who has no write access/);
    assert.notEqual(row.section, "frontier");
  });

  it("a ready-for-agent label last applied by a non-writer is ignored by the Frontier and the machine claim", async () => {
    // A read user cannot label at all (the sandbox answers like GitHub)...
    const early = await s.issue("label target", []);
    await assert.rejects(
      s
        .client("mallory")
        .request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", { owner: OWNER, repo: NAME, issue_number: early, labels: [LABELS.ready] }),
    );
    // ...so the forger is someone who labelled and then lost write access (or a triage-only role on GitHub).
    const n = await s.issue("forged label target", [LABELS.ready], "trudy");
    await s.sandbox.admin.setRole("trudy", FULL, "read");
    forged += 1;

    const tracker = s.tracker("alice");
    const config = configSchema.parse({});
    const issue = (await tracker.getIssue(n))!;
    const verdict = await eligibility(tracker, config, labelTrust(tracker, LABELS.ready, s.log), issue);
    assert.deepEqual(verdict, { ok: false, reason: "ready-for-agent was not applied by someone with write access" });

    const attempt = await s.claimer({ user: "alice", host: "a3" }).gate.claim(n);
    assert.equal(attempt.kind, "lost");
    if (attempt.kind === "lost") {
      assert.equal(attempt.refusal?.reason, "untrusted");
      assert.match(attempt.reason, /applied by trudy, who has no write access/);
    }
    // A writer re-applying it makes it count again.
    await s
      .client("alice")
      .request("DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", { owner: OWNER, repo: NAME, issue_number: n, name: LABELS.ready });
    await s
      .client("alice")
      .request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", { owner: OWNER, repo: NAME, issue_number: n, labels: [LABELS.ready] });
    assert.deepEqual(await eligibility(tracker, config, labelTrust(tracker, LABELS.ready, s.log), (await tracker.getIssue(n))!), { ok: true });
  });

  it("a writer's claim and release do not turn a non-writer's ready label into a writer's", async () => {
    const n = await s.issue("laundered label target", [LABELS.ready], "tom");
    await s.sandbox.admin.setRole("tom", FULL, "read");
    forged += 1;
    const person = s.claimer({ user: "alice", host: "a5", holder: "person" });
    await person.gate.take(n);
    const report = await person.gate.releaseByHand(n);
    assert.match(report.summary, /ready-for-agent not put back \(no writer applied it/);
    const tracker = s.tracker("alice");
    const issue = (await tracker.getIssue(n))!;
    assert.ok(!issue.labels.includes(LABELS.ready), `labels after release: ${issue.labels.join(", ")}`);
    assert.ok(!issue.labels.includes(LABELS.inProgress));
    const attempt = await s.claimer({ user: "bob", host: "b5" }).gate.claim(n);
    assert.equal(attempt.kind, "lost", "a machine took the ticket after the release");
    // A writer's own label still comes back after a release.
    const fair = await s.issue("fair label target");
    await person.gate.take(fair);
    await person.gate.releaseByHand(fair);
    assert.ok((await tracker.getIssue(fair))!.labels.includes(LABELS.ready));
  });

  it("a comment over 65,536 characters is never a lease; the real lease beside it still counts", async () => {
    const n = await s.issue("huge comment target");
    const alice = s.claimer({ user: "alice", host: "a4" });
    const got = await alice.gate.claim(n);
    assert.equal(got.kind, "won");
    if (got.kind !== "won") return;
    const huge =
      renderLeaseComment({ ...got.claim.lease, nonce: "22222222huge", claimedAt: "2020-01-01T00:00:00.000Z" }) + "\n" + "x".repeat(MAX_COMMENT_CHARS);
    assert.equal(parseLeaseComment(huge, { repo: FULL, issue: n }).kind, "ignored");
    // Written by a collaborator, so only the size rule can stop it. GitHub would refuse the POST (422);
    // whether or not this server does, the reader must not believe it.
    await s
      .tracker("bob")
      .createComment(n, huge)
      .catch(() => undefined);
    await s.tracker("bob").createComment(n, "y".repeat(MAX_COMMENT_CHARS));
    const reading = await alice.gate.read(n);
    assert.equal(reading.standing.live.length, 1);
    assert.equal(reading.standing.live[0]?.lease?.nonce, got.claim.lease.nonce);
    assert.equal(await alice.gate.heartbeat(got.claim), "held");
    // A lease whose kept archive would push it over the limit drops the archive, never the lease.
    const withTail = renderLeaseComment(got.claim.lease, `<details><summary>old</summary>\n${"z".repeat(MAX_COMMENT_CHARS)}\n</details>`);
    assert.ok(withTail.length <= MAX_COMMENT_CHARS);
    assert.equal(parseLeaseComment(withTail, { repo: FULL, issue: n }).kind, "lease");
    record("input.huge-comment", { what: "a comment over 65,536 chars is never read as a lease", test: TEST, inputs: 3, losses: 0 });
  });

  after(() => record("input.forged", { what: "forged leases, markers and labels from non-writers are ignored", test: TEST, inputs: forged, losses: 0 }));
});
