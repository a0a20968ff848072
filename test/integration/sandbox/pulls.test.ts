// Conformance: pull requests and merging on real git (https://docs.github.com/rest/pulls/pulls),
// plus the GraphQL draft and merge mutations (https://docs.github.com/graphql/reference/mutations).
import { strict as assert } from "node:assert";
import { waitFor } from "../../support/wait-for";
import { cloneAs, closeWorld, commitFile, errorOf, gitOk, makeWorld, OWNER, REPO } from "./support";
import type { World } from "./support";

const repo = { owner: OWNER, repo: REPO };

describe("sandbox pull requests", function () {
  let w: World;
  let dir: string;
  before(async () => {
    w = await makeWorld();
    dir = await cloneAs(w, "bob");
  });
  after(async () => closeWorld(w));

  /** Makes branch `name` from origin/main with one commit changing `file`, pushes it, returns the sha. */
  async function branch(name: string, file: string, text: string): Promise<string> {
    await gitOk(["fetch", "--quiet", "origin"], dir);
    await gitOk(["checkout", "--quiet", "-B", name, "origin/main"], dir);
    const sha = await commitFile(dir, file, text, `change ${file} on ${name}`);
    await gitOk(["push", "--quiet", "--force", "origin", `${name}:refs/heads/${name}`], dir);
    return sha;
  }

  it("create (draft), list by head/base/state, and PRs appear in the issues list with a pull_request key", async () => {
    const sha = await branch("feature/a", "a.txt", "a\n");
    const created = await w.as("bob").pulls.create({ ...repo, head: "feature/a", base: "main", title: "Add a", body: "Adds a.", draft: true });
    assert.equal(created.status, 201);
    assert.equal(created.data.draft, true);
    assert.equal(created.data.head.sha, sha);
    assert.equal(created.data.head.ref, "feature/a");
    const byHead = await w.as("carol").pulls.list({ ...repo, head: `${OWNER}:feature/a` });
    assert.deepEqual(
      byHead.data.map((p) => p.number),
      [created.data.number],
    );
    assert.deepEqual((await w.as("carol").pulls.list({ ...repo, base: "other" })).data, []);
    assert.deepEqual((await w.as("carol").pulls.list({ ...repo, state: "closed" })).data, []);
    const issues = await w.as("carol").issues.listForRepo(repo);
    const asIssue = issues.data.find((i) => i.number === created.data.number);
    assert.ok(asIssue?.pull_request, "a PR in the issues list has a pull_request key");
  });

  it("create refuses: no commits between, an existing PR for the head, an unknown head (422)", async () => {
    await gitOk(["push", "--quiet", "origin", "origin/main:refs/heads/same"], dir);
    assert.match((await errorOf(w.as("bob").pulls.create({ ...repo, head: "same", base: "main", title: "t" }))).message, /No commits between main and same/);
    assert.match((await errorOf(w.as("bob").pulls.create({ ...repo, head: "feature/a", base: "main", title: "t" }))).message, /already exists/);
    assert.equal((await errorOf(w.as("bob").pulls.create({ ...repo, head: "nope", base: "main", title: "t" }))).status, 422);
  });

  it("get: mergeable is null while computing, then true", async () => {
    const n = (await w.as("bob").pulls.list({ ...repo, head: `${OWNER}:feature/a` })).data[0]?.number ?? 0;
    const first = await w.as("bob").pulls.get({ ...repo, pull_number: n });
    assert.equal(first.data.mergeable, null);
    const later = await waitFor(async () => {
      const d = (await w.as("bob").pulls.get({ ...repo, pull_number: n })).data;
      return d.mergeable !== null ? d : null;
    });
    assert.equal(later.mergeable, true);
    assert.equal(later.mergeable_state, "draft");
  });

  it("a draft cannot be merged (405); GraphQL marks it ready and back", async () => {
    const pr = (await w.as("bob").pulls.list({ ...repo, head: `${OWNER}:feature/a` })).data[0];
    assert.ok(pr);
    assert.equal((await errorOf(w.as("bob").pulls.merge({ ...repo, pull_number: pr.number }))).status, 405);
    const ready = await w
      .as("bob")
      .graphql<{ m: { pullRequest: { isDraft: boolean } } }>(
        `mutation($id: ID!) { m: markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`,
        { id: pr.node_id },
      );
    assert.equal(ready.m.pullRequest.isDraft, false);
    const draft = await w
      .as("bob")
      .graphql<{ m: { pullRequest: { isDraft: boolean } } }>(
        `mutation($id: ID!) { m: convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`,
        { id: pr.node_id },
      );
    assert.equal(draft.m.pullRequest.isDraft, true);
    await w.as("bob").graphql(`mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { clientMutationId } }`, { id: pr.node_id });
  });

  it("a push to the head branch updates the PR head and refs/pull/N/head (read-only to pushes); a stale sha guard is 409", async () => {
    const pr = (await w.as("bob").pulls.list({ ...repo, head: `${OWNER}:feature/a` })).data[0];
    assert.ok(pr);
    const old = pr.head.sha;
    const pullRef = `refs/pull/${pr.number}/head`;
    assert.equal((await gitOk(["ls-remote", "origin", pullRef], dir)).split("\t")[0], old);
    await gitOk(["checkout", "--quiet", "feature/a"], dir);
    const sha = await commitFile(dir, "a2.txt", "a2\n", "more a");
    await gitOk(["push", "--quiet", "origin", "feature/a"], dir);
    assert.equal((await w.as("bob").pulls.get({ ...repo, pull_number: pr.number })).data.head.sha, sha);
    // https://docs.github.com/pull-requests/collaborating-with-pull-requests/reviewing-changes-in-pull-requests/checking-out-pull-requests-locally
    assert.equal((await gitOk(["ls-remote", "origin", pullRef], dir)).split("\t")[0], sha);
    await assert.rejects(gitOk(["push", "--quiet", "origin", `${old}:${pullRef}`], dir), /hidden ref/);
    const e = await errorOf(w.as("bob").pulls.merge({ ...repo, pull_number: pr.number, sha: old }));
    assert.equal(e.status, 409);
    assert.match(e.message, /Head branch was modified/);
  });

  it("a push receive-pack takes in part moves the PR head only for the ref it took (its report, ADR 0432)", async () => {
    const sha = await branch("feature/part", "part.txt", "part\n");
    const pr = (await w.as("bob").pulls.create({ ...repo, head: "feature/part", base: "main", title: "Part" })).data;
    const pullRef = `refs/pull/${pr.number}/head`;
    const next = await commitFile(dir, "part2.txt", "part2\n", "more part");
    // Not atomic: receive-pack takes the branch and refuses the hidden ref, in one push.
    await assert.rejects(gitOk(["push", "--quiet", "origin", `${next}:refs/heads/feature/part`, `${sha}:refs/pull/1/head`], dir), /hidden ref/);
    assert.equal((await gitOk(["ls-remote", "origin", "refs/heads/feature/part"], dir)).split("\t")[0], next);
    assert.equal((await w.as("bob").pulls.get({ ...repo, pull_number: pr.number })).data.head.sha, next);
    assert.equal((await gitOk(["ls-remote", "origin", pullRef], dir)).split("\t")[0], next);
  });

  it("merge (merge commit) closes issues named by closing keywords and deletes the head with delete_branch_on_merge", async () => {
    const issue = (await w.as("bob").issues.create({ ...repo, title: "to be fixed" })).data.number;
    await w.as("alice").repos.update({ ...repo, delete_branch_on_merge: true });
    const pr = (await w.as("bob").pulls.list({ ...repo, head: `${OWNER}:feature/a` })).data[0];
    assert.ok(pr);
    await w.as("bob").pulls.update({ ...repo, pull_number: pr.number, body: `Adds a.\n\nFixes #${issue}` });
    const head = (await w.as("bob").pulls.get({ ...repo, pull_number: pr.number })).data.head.sha;
    const merged = await w.as("bob").pulls.merge({ ...repo, pull_number: pr.number, sha: head, merge_method: "merge" });
    assert.equal(merged.data.merged, true);
    const after = await w.as("bob").pulls.get({ ...repo, pull_number: pr.number });
    assert.equal(after.data.merged, true);
    assert.equal(after.data.state, "closed");
    assert.equal(after.data.merge_commit_sha, merged.data.sha);
    assert.equal((await w.as("bob").issues.get({ ...repo, issue_number: issue })).data.state, "closed");
    await gitOk(["fetch", "--quiet", "--prune", "origin"], dir);
    assert.equal(await gitOk(["rev-parse", "origin/main"], dir), merged.data.sha);
    assert.equal((await gitOk(["rev-list", "--parents", "-n", "1", "origin/main"], dir)).split(" ").length, 3);
    assert.equal(await gitOk(["branch", "-r", "--list", "origin/feature/a"], dir), "");
    assert.equal((await errorOf(w.as("bob").pulls.merge({ ...repo, pull_number: pr.number }))).status, 405);
    await w.as("alice").repos.update({ ...repo, delete_branch_on_merge: false });
  });

  it("squash makes one commit with one parent; rebase replays commits keeping their authors", async () => {
    await branch("feature/s", "s.txt", "s\n");
    await commitFile(dir, "s2.txt", "s2\n", "second s");
    await gitOk(["push", "--quiet", "origin", "feature/s"], dir);
    const s = await w.as("bob").pulls.create({ ...repo, head: "feature/s", base: "main", title: "Squash me" });
    const sq = await w.as("bob").pulls.merge({ ...repo, pull_number: s.data.number, merge_method: "squash" });
    await gitOk(["fetch", "--quiet", "origin"], dir);
    assert.equal((await gitOk(["rev-list", "--parents", "-n", "1", sq.data.sha], dir)).split(" ").length, 2);
    // No message given: the body lists the commits' subjects, newest first.
    assert.equal(await gitOk(["log", "-1", "--format=%B", sq.data.sha], dir), `Squash me (#${s.data.number})\n\n* second s\n* change s.txt on feature/s`);

    // A message given (as the Run gives one) is the body, and no subject is read for it.
    await branch("feature/m", "m.txt", "m\n");
    const m = await w.as("bob").pulls.create({ ...repo, head: "feature/m", base: "main", title: "Squash with a message" });
    const sm = await w
      .as("bob")
      .pulls.merge({ ...repo, pull_number: m.data.number, merge_method: "squash", commit_title: "Own title", commit_message: "Own body." });
    await gitOk(["fetch", "--quiet", "origin"], dir);
    assert.equal(await gitOk(["log", "-1", "--format=%B", sm.data.sha], dir), "Own title\n\nOwn body.");

    await branch("feature/r", "r.txt", "r\n");
    await commitFile(dir, "r2.txt", "r2\n", "second r");
    await gitOk(["push", "--quiet", "origin", "feature/r"], dir);
    const r = await w.as("bob").pulls.create({ ...repo, head: "feature/r", base: "main", title: "Rebase me" });
    const rb = await w.as("bob").pulls.merge({ ...repo, pull_number: r.data.number, merge_method: "rebase" });
    await gitOk(["fetch", "--quiet", "origin"], dir);
    assert.equal(await gitOk(["log", "-2", "--format=%s|%an", rb.data.sha], dir), "second r|Test Author\nchange r.txt on feature/r|Test Author");
    assert.equal(await gitOk(["rev-parse", `${rb.data.sha}~2`], dir), sm.data.sha);
  });

  it("a method the repository disallows is 405", async () => {
    await w.as("alice").repos.update({ ...repo, allow_squash_merge: false });
    await branch("feature/d", "d.txt", "d\n");
    const pr = await w.as("bob").pulls.create({ ...repo, head: "feature/d", base: "main", title: "d" });
    const e = await errorOf(w.as("bob").pulls.merge({ ...repo, pull_number: pr.data.number, merge_method: "squash" }));
    assert.equal(e.status, 405);
    await w.as("alice").repos.update({ ...repo, allow_squash_merge: true });
  });

  it("a conflicting PR is 405 not mergeable and reports mergeable false", async () => {
    await branch("conflict/one", "README.md", "one\n");
    await branch("conflict/two", "README.md", "two\n");
    const one = await w.as("bob").pulls.create({ ...repo, head: "conflict/one", base: "main", title: "one" });
    const two = await w.as("bob").pulls.create({ ...repo, head: "conflict/two", base: "main", title: "two" });
    await w.as("bob").pulls.merge({ ...repo, pull_number: one.data.number });
    const e = await errorOf(w.as("bob").pulls.merge({ ...repo, pull_number: two.data.number }));
    assert.equal(e.status, 405);
    assert.match(e.message, /not mergeable/);
    const got = await waitFor(async () => {
      const d = (await w.as("bob").pulls.get({ ...repo, pull_number: two.data.number })).data;
      return d.mergeable !== null ? d : null;
    });
    assert.equal(got.mergeable, false);
    assert.equal(got.mergeable_state, "dirty");
  });

  it("GraphQL mergePullRequest honours expectedHeadOid", async () => {
    const sha = await branch("feature/g", "g.txt", "g\n");
    const pr = await w.as("bob").pulls.create({ ...repo, head: "feature/g", base: "main", title: "g" });
    const q = `mutation($id: ID!, $oid: GitObjectID!) { mergePullRequest(input: {pullRequestId: $id, expectedHeadOid: $oid, mergeMethod: SQUASH}) { pullRequest { merged state mergeCommit { oid } } } }`;
    await assert.rejects(w.as("bob").graphql(q, { id: pr.data.node_id, oid: "0".repeat(40) }), /Head branch was modified/);
    const r = await w.as("bob").graphql<{ mergePullRequest: { pullRequest: { merged: boolean; state: string } } }>(q, { id: pr.data.node_id, oid: sha });
    assert.deepEqual({ merged: r.mergePullRequest.pullRequest.merged, state: r.mergePullRequest.pullRequest.state }, { merged: true, state: "MERGED" });
  });

  it("a closing keyword in a commit pushed to the default branch closes the issue", async () => {
    const n = (await w.as("bob").issues.create({ ...repo, title: "closed by a commit" })).data.number;
    await gitOk(["fetch", "--quiet", "origin"], dir);
    await gitOk(["checkout", "--quiet", "-B", "main", "origin/main"], dir);
    await commitFile(dir, "k.txt", "k\n", `tidy\n\nCloses #${n}`);
    await gitOk(["push", "--quiet", "origin", "main"], dir);
    assert.equal((await w.as("bob").issues.get({ ...repo, issue_number: n })).data.state, "closed");
  });
});
