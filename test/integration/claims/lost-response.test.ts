/**
 * A write that lands on GitHub while its response is lost (the connection cut after the write was
 * applied): the client cannot tell, so it must look before it sends again. Real Octokit against the
 * sandbox's `loseResponses` fault; the sandbox's request log and the issue's comments are the proof.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import { FULL, LABELS, useClaimsSandbox } from "./claims-sandbox";

describe("claims (integration): writes whose response is lost", function () {
  this.timeout(60_000);
  const s = useClaimsSandbox({ clearFaults: true });

  const sent = async (re: RegExp) => (await s.sandbox.admin.requestLog()).filter((r) => re.test(`${r.method} ${r.path}`));

  it("a comment that landed with its response lost is found, not posted again", async () => {
    const n = await s.issue("lost comment");
    const tracker = s.tracker("alice");
    await s.sandbox.admin.clearRequestLog();
    await s.sandbox.admin.setFaults({ loseResponses: { routes: "^POST /repos/acme/widgets/issues/\\d+/comments$", count: 1 } });
    const made = await tracker.createComment(n, "progress: implement done");
    const comments = await tracker.listComments(n);
    assert.deepEqual(
      comments.map((c) => c.body),
      ["progress: implement done"],
    );
    assert.equal(made.id, comments[0]!.id);
    const posts = await sent(/^POST \/repos\/acme\/widgets\/issues\/\d+\/comments$/);
    assert.deepEqual(
      posts.map((r) => r.status),
      [0],
      "one POST, its response lost (status 0 in the log), none sent again",
    );
  });

  it("a claim whose one GraphQL write landed with its response lost is won once: one lease comment, labels on, run.json names it", async () => {
    const n = await s.issue("lost claim");
    const a = s.claimer({ user: "alice", host: "m1" });
    await s.sandbox.admin.clearRequestLog();
    await s.sandbox.admin.setFaults({ loseResponses: { routes: "^POST /graphql$", count: 1 } });
    const won = await a.gate.take(n);
    await s.sandbox.admin.setFaults({});

    const leases = (await a.tracker.listComments(n)).filter((c) => parseLeaseComment(c.body, { repo: FULL, issue: n }).kind === "lease");
    assert.equal(leases.length, 1, "one lease comment");
    assert.equal(won.claim.commentId, leases[0]!.id);
    const issue = await a.tracker.getIssue(n);
    assert.ok(issue?.labels.includes(LABELS.inProgress), `labels: ${issue?.labels.join(", ")}`);
    assert.ok(!issue?.labels.includes(LABELS.ready));
    const run = JSON.parse(readFileSync(join(a.root.dirFor({ owner: "acme", repo: "widgets" }, n), "run.json"), "utf8")) as { commentId: number };
    assert.equal(run.commentId, leases[0]!.id);
    assert.ok(
      (await sent(/^POST \/graphql$/)).some((r) => r.status === 0),
      "the fault fired",
    );
  });
});
