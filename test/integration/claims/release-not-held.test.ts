/**
 * `ticket-runner release <n>` releases only what this user holds (docs/adr/0120). A ticket they do
 * not hold is refused (exit 2) with nothing changed on the board or on this Host, and the refusal
 * says what happened, who holds what (with a link) and the next command. Their own Stranded claim
 * (an expired lease of theirs, or in-progress and assigned with no lease) and an --offline local
 * claim are still released. Real CLI processes, one clone per Host, against the sandbox.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import type { Clock } from "../../../src/ports/clock";
import { FULL, NAME, OWNER, realClock, useClaimsSandbox } from "./claims-sandbox";
import type { CliResult } from "./cli-process";
import { boardOf, said, usePeople } from "./people";

const behind: Clock = { now: () => new Date(Date.now() - 46 * 60_000), sleep: realClock.sleep };

describe("claims (integration): release refuses a ticket you do not hold", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write", bob: "write", boss: "admin" } });
  const people = usePeople(s, ["bob", "boss"]);

  const cli = (user: string, args: string[]): Promise<CliResult> => people.cli(user, args);
  const runDir = (user: string, n: number) => people.runDir(user, n);

  const board = (n: number) => boardOf(s, n);

  async function leases(n: number) {
    const comments = await s.tracker("alice").listComments(n);
    return comments.flatMap((c) => {
      const p = parseLeaseComment(c.body, { repo: FULL, issue: n });
      return p.kind === "lease" ? [{ url: c.url, author: c.author, state: p.lease.state }] : [];
    });
  }

  it("bob's claim taken over and released by an admin: bob's release is refused, exit 2, and changes nothing", async () => {
    const n = await s.issue("taken from bob");
    const started = await cli("bob", ["start", String(n)]);
    assert.equal(started.code, 0, said(started));
    const taken = await cli("boss", ["start", String(n), "--take-over"]);
    assert.equal(taken.code, 0, said(taken));
    const released = await cli("boss", ["release", String(n)]);
    assert.equal(released.code, 0, said(released));
    const [bobLease, bossLease] = await leases(n);
    assert.equal(bobLease?.state, "superseded");
    assert.equal(bossLease?.state, "released");

    const before = await board(n);
    const r = await cli("bob", ["release", String(n)]);
    assert.equal(r.code, 2, said(r));
    assert.equal(r.stdout, "", said(r));
    assert.match(r.stderr, /holds no claim of yours, so there is nothing for you to release\. Nothing was changed\./, said(r));
    assert.ok(r.stderr.includes(`Your claim (${bobLease!.url}) was taken over by @boss on host "boss-box"`), said(r));
    assert.ok(r.stderr.includes(`that claim is now released (${bossLease!.url})`), said(r));
    assert.match(r.stderr, /labelled ready-for-agent and nobody holds it/, said(r));
    assert.match(r.stderr, /`ticket-runner board`/, said(r));
    assert.doesNotMatch(r.stderr, /^error:/m, said(r));
    assert.equal(await board(n), before, "the board is exactly as it was");
    assert.ok(existsSync(join(runDir("bob", n), "run.json")), "bob's local run directory was left as it was");
    assert.ok(r.stderr.includes(`mv ${runDir("bob", n)} ${runDir("bob", n)}.old`), said(r));
  });

  it("someone else's expired lease: refused, nothing changed, next is to claim it first", async () => {
    const n = await s.issue("alice's stranded one");
    await s.claimer({ user: "alice", host: "gone-vm", clock: behind }).gate.take(n);
    const before = await board(n);
    const r = await cli("bob", ["release", String(n)]);
    assert.equal(r.code, 2, said(r));
    assert.match(r.stderr, /is held by @alice on host "gone-vm" \(machine/, said(r));
    assert.match(r.stderr, /That lease has expired, but the claim is theirs/, said(r));
    assert.match(r.stderr, new RegExp(`\`ticket-runner claim ${n}\`, then \`ticket-runner release ${n}\``), said(r));
    assert.match(r.stderr, /Lease: http.*issuecomment/, said(r));
    assert.equal(await board(n), before);
  });

  it("bob's own expired lease (a Stranded claim of his): released, lease marked released, labels back", async () => {
    const n = await s.issue("bob's stranded one");
    await s.claimer({ user: "bob", host: "dead-vm", clock: behind }).gate.take(n);
    const r = await cli("bob", ["release", String(n)]);
    assert.equal(r.code, 0, said(r));
    assert.match(r.stdout, /your expired lease .* marked released/, said(r));
    const thread = await s.tracker("alice").readIssueThread(n);
    assert.ok(thread!.issue.labels.includes("ready-for-agent") && !thread!.issue.labels.includes("in-progress"), thread!.issue.labels.join(","));
    assert.deepEqual(thread!.issue.assignees, []);
    assert.deepEqual(
      (await leases(n)).map((l) => l.state),
      ["released"],
    );
  });

  it("bob's claim on the board without a lease (in-progress, bob assigned): released", async () => {
    const n = await s.issue("claimed in GitHub's UI");
    const admin = s.client("sandbox-admin");
    await admin.request("DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", {
      owner: OWNER,
      repo: NAME,
      issue_number: n,
      name: "ready-for-agent",
    });
    await admin.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", { owner: OWNER, repo: NAME, issue_number: n, labels: ["in-progress"] });
    await admin.request("POST /repos/{owner}/{repo}/issues/{issue_number}/assignees", { owner: OWNER, repo: NAME, issue_number: n, assignees: ["bob"] });
    const r = await cli("bob", ["release", String(n)]);
    assert.equal(r.code, 0, said(r));
    assert.match(r.stdout, /on the board \(your claim there had no lease\)/, said(r));
    const thread = await s.tracker("alice").readIssueThread(n);
    assert.deepEqual(thread!.issue.labels, ["ready-for-agent"]);
    assert.deepEqual(thread!.issue.assignees, []);
  });

  it("an --offline start (a local claim only) is released on this Host, and GitHub is not touched", async () => {
    const n = await s.issue("offline one");
    const started = await cli("bob", ["start", String(n), "--offline"]);
    assert.equal(started.code, 0, said(started));
    const before = await board(n);
    const r = await cli("bob", ["release", String(n)]);
    assert.equal(r.code, 0, said(r));
    assert.match(r.stdout, /on this Host only/, said(r));
    assert.match(r.stdout, /Local run moved to .*superseded/, said(r));
    assert.equal(await board(n), before);
    assert.ok(!existsSync(join(runDir("bob", n), "run.json")));
  });

  it("a ticket nobody ever claimed: refused, nothing changed", async () => {
    const n = await s.issue("never claimed");
    const before = await board(n);
    const r = await cli("bob", ["release", String(n)]);
    assert.equal(r.code, 2, said(r));
    assert.match(r.stderr, /It has no lease comment\./, said(r));
    assert.equal(await board(n), before);
  });
});
