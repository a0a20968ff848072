// Conformance: check runs, commit statuses, git refs and issue dependencies through @octokit/rest.
import { strict as assert } from "node:assert";
import { checkResponse } from "../../support/openapi-reference";
import { closeWorld, errorOf, makeWorld, OWNER, REPO, status } from "./support";
import type { World } from "./support";

const repo = { owner: OWNER, repo: REPO };

describe("sandbox checks, statuses, git refs, dependencies", function () {
  let w: World;
  let main: string;
  before(async () => {
    w = await makeWorld();
    main = (await w.as("bob").git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
  });
  after(async () => closeWorld(w));

  it("combined status is `pending` with total_count 0 when there are no statuses (https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference)", async () => {
    const { data } = await w.as("carol").repos.getCombinedStatusForRef({ ...repo, ref: "main" });
    assert.equal(data.state, "pending");
    assert.equal(data.total_count, 0);
  });

  it("statuses: create, latest per context wins, failure beats success (https://docs.github.com/rest/commits/statuses#create-a-commit-status)", async () => {
    assert.equal((await w.as("bob").repos.createCommitStatus({ ...repo, sha: main, state: "pending", context: "ci/a" })).status, 201);
    await w.as("bob").repos.createCommitStatus({ ...repo, sha: main, state: "success", context: "ci/a" });
    assert.equal((await w.as("carol").repos.getCombinedStatusForRef({ ...repo, ref: "main" })).data.state, "success");
    await w.as("bob").repos.createCommitStatus({ ...repo, sha: main, state: "failure", context: "ci/b" });
    const combined = (await w.as("carol").repos.getCombinedStatusForRef({ ...repo, ref: main })).data;
    assert.equal(combined.state, "failure");
    assert.equal(combined.total_count, 2);
    assert.equal((await w.as("carol").repos.listCommitStatusesForRef({ ...repo, ref: main })).data.length, 3);
    assert.equal(await status(w.as("carol").repos.createCommitStatus({ ...repo, sha: main, state: "success" })), 403);
    assert.equal(await status(w.as("bob").repos.createCommitStatus({ ...repo, sha: "f".repeat(40), state: "success" })), 422);
  });

  it("check runs: only a GitHub App writes them; create, update to completed, list for a ref (latest per name) (https://docs.github.com/rest/checks/runs)", async () => {
    assert.equal(
      await status(w.as("bob").checks.create({ ...repo, name: "build", head_sha: main, status: "in_progress" })),
      403,
      "a person's token cannot create a check run",
    );
    const created = await w.as("ci-app[bot]").checks.create({ ...repo, name: "build", head_sha: main, status: "in_progress" });
    assert.equal(created.status, 201);
    assert.equal(created.data.status, "in_progress");
    assert.equal(await status(w.as("bob").checks.update({ ...repo, check_run_id: created.data.id, conclusion: "failure" })), 403, "nor update one");
    const done = await w
      .as("ci-app[bot]")
      .checks.update({ ...repo, check_run_id: created.data.id, conclusion: "success", output: { title: "ok", summary: "all good" } });
    assert.equal(done.data.status, "completed");
    assert.equal(done.data.conclusion, "success");
    await w.as("ci-app[bot]").checks.create({ ...repo, name: "build", head_sha: main, status: "queued" });
    const list = await w.as("carol").checks.listForRef({ ...repo, ref: "main" });
    assert.equal(list.data.total_count, 1);
    assert.equal(list.data.check_runs[0]?.status, "queued");
    assert.equal((await w.as("carol").checks.listForRef({ ...repo, ref: main, filter: "all" })).data.total_count, 2);
    assert.equal(await status(w.as("ci-app[bot]").checks.create({ ...repo, name: "x", head_sha: main, status: "completed" })), 422);
  });

  it("git refs: get, create (422 Reference already exists), fast-forward-only update, force, delete (https://docs.github.com/rest/git/refs)", async () => {
    const got = await w.as("carol").git.getRef({ ...repo, ref: "heads/main" });
    assert.equal(got.data.ref, "refs/heads/main");
    const created = await w.as("bob").git.createRef({ ...repo, ref: "refs/heads/ticket-runner/state", sha: main });
    assert.equal(created.status, 201);
    const dup = await errorOf(w.as("bob").git.createRef({ ...repo, ref: "refs/heads/ticket-runner/state", sha: main }));
    assert.equal(dup.status, 422);
    assert.equal(dup.data.message, "Reference already exists");
    const child = await w
      .as("bob")
      .git.createCommit({ ...repo, message: "child", tree: (await w.as("bob").git.getCommit({ ...repo, commit_sha: main })).data.tree.sha, parents: [main] });
    {
      const ff = await w.as("bob").git.updateRef({ ...repo, ref: "heads/ticket-runner/state", sha: child.data.sha, force: false });
      assert.equal(ff.data.object.sha, child.data.sha);
      const back = await errorOf(w.as("bob").git.updateRef({ ...repo, ref: "heads/ticket-runner/state", sha: main, force: false }));
      assert.equal(back.status, 422);
      assert.match(back.data.message as string, /not a fast forward/);
      assert.equal((await w.as("bob").git.updateRef({ ...repo, ref: "heads/ticket-runner/state", sha: main, force: true })).status, 200);
    }
    assert.equal(await status(w.as("bob").git.deleteRef({ ...repo, ref: "heads/ticket-runner/state" })), 204);
    assert.equal(await status(w.as("carol").git.getRef({ ...repo, ref: "heads/ticket-runner/state" })), 404);
    assert.equal(await status(w.as("bob").git.createRef({ ...repo, ref: "refs/heads/../../evil", sha: main })), 422);
    assert.equal(await status(w.as("carol").git.createRef({ ...repo, ref: "refs/heads/x", sha: main })), 403);
  });

  it("branches: list, sorted by name, paginated, with each head's sha (https://docs.github.com/rest/branches/branches#list-branches)", async () => {
    for (const name of ["zeta", "agent/7-x"]) await w.as("bob").git.createRef({ ...repo, ref: `refs/heads/${name}`, sha: main });
    try {
      const all = await w.as("carol").paginate(w.as("carol").repos.listBranches, { ...repo, per_page: 1 });
      assert.deepEqual(
        all.map((b) => b.name),
        ["agent/7-x", "main", "zeta"],
      );
      assert.ok(all.every((b) => b.commit.sha === main));
      const first = await w.as("carol").repos.listBranches({ ...repo, per_page: 2 });
      assert.match(first.headers.link ?? "", /rel="next"/);
    } finally {
      for (const name of ["zeta", "agent/7-x"]) await w.as("bob").git.deleteRef({ ...repo, ref: `heads/${name}` });
    }
  });

  it("git data: blob, tree on a base tree, commit, and contents on a branch (https://docs.github.com/rest/git/trees#create-a-tree)", async () => {
    const blob = await w.as("bob").git.createBlob({ ...repo, content: '{"v":1}\n' });
    const base = (await w.as("bob").git.getCommit({ ...repo, commit_sha: main })).data.tree.sha;
    const tree = await w
      .as("bob")
      .git.createTree({ ...repo, base_tree: base, tree: [{ path: "state/7.json", mode: "100644", type: "blob", sha: blob.data.sha }] });
    const commit = await w.as("bob").git.createCommit({ ...repo, message: "state", tree: tree.data.sha, parents: [main] });
    await w.as("bob").git.createRef({ ...repo, ref: "refs/heads/data-test", sha: commit.data.sha });
    const file = await w.as("carol").repos.getContent({ ...repo, path: "state/7.json", ref: "data-test" });
    const data = file.data as { content: string };
    assert.equal(Buffer.from(data.content, "base64").toString("utf8"), '{"v":1}\n');
    assert.equal(await status(w.as("carol").repos.getContent({ ...repo, path: "state/7.json" })), 404);
    assert.equal(await status(w.as("bob").git.createTree({ ...repo, tree: [{ path: "../x", mode: "100644", type: "blob", content: "x" }] })), 422);
  });

  it("git data's answers are what GitHub's OpenAPI description says: blob, tree, commit and ref, created and read (https://docs.github.com/rest/git)", async () => {
    const bob = w.as("bob");
    const problems: string[] = [];
    const check = (route: string, res: { status: number; data: unknown }) => problems.push(...checkResponse(route, res.status, res.data));
    const blob = await bob.git.createBlob({ ...repo, content: "schema\n" });
    check("POST /repos/{owner}/{repo}/git/blobs", blob);
    const base = await bob.git.getCommit({ ...repo, commit_sha: main });
    check("GET /repos/{owner}/{repo}/git/commits/{commit_sha}", base);
    const tree = await bob.git.createTree({
      ...repo,
      base_tree: base.data.tree.sha,
      tree: [{ path: "schema.txt", mode: "100644", type: "blob", sha: blob.data.sha }],
    });
    check("POST /repos/{owner}/{repo}/git/trees", tree);
    check("GET /repos/{owner}/{repo}/git/trees/{tree_sha}", await bob.git.getTree({ ...repo, tree_sha: tree.data.sha }));
    const commit = await bob.git.createCommit({ ...repo, message: "schema", tree: tree.data.sha, parents: [main] });
    check("POST /repos/{owner}/{repo}/git/commits", commit);
    const read = await bob.git.getCommit({ ...repo, commit_sha: commit.data.sha });
    check("GET /repos/{owner}/{repo}/git/commits/{commit_sha}", read);
    check("POST /repos/{owner}/{repo}/git/refs", await bob.git.createRef({ ...repo, ref: "refs/heads/schema-test", sha: commit.data.sha }));
    check("GET /repos/{owner}/{repo}/git/ref/{ref}", await bob.git.getRef({ ...repo, ref: "heads/schema-test" }));
    await bob.git.deleteRef({ ...repo, ref: "heads/schema-test" });
    assert.deepEqual(problems, []);
    // What the description asks of a commit beyond its shape: its links and its node id name this commit.
    assert.equal(read.data.html_url, commit.data.html_url);
    assert.match(read.data.html_url, new RegExp(`/${OWNER}/${REPO}/commit/${commit.data.sha}$`));
    assert.deepEqual(
      read.data.parents.map((p) => p.html_url),
      [base.data.html_url],
    );
    assert.notEqual(read.data.node_id, base.data.node_id);
    assert.equal(read.data.verification.verified_at, null);
  });

  it("issue dependencies: blocked_by add, list, remove (https://docs.github.com/rest/issues/issue-dependencies)", async () => {
    const blocker = (await w.as("bob").issues.create({ ...repo, title: "blocker" })).data;
    const blocked = (await w.as("bob").issues.create({ ...repo, title: "blocked" })).data;
    const path = `/repos/${OWNER}/${REPO}/issues/${blocked.number}/dependencies/blocked_by`;
    const add = await w.as("bob").request(`POST ${path}`, { issue_id: blocker.id });
    assert.equal(add.status, 201);
    const list = await w.as("carol").request(`GET ${path}`);
    assert.deepEqual(
      (list.data as { number: number }[]).map((i) => i.number),
      [blocker.number],
    );
    const summary = (await w.as("carol").issues.get({ ...repo, issue_number: blocked.number })).data as unknown as {
      issue_dependencies_summary: { blocked_by: number };
    };
    assert.equal(summary.issue_dependencies_summary.blocked_by, 1);
    const rm = await w.as("bob").request(`DELETE ${path}/${blocker.id}`);
    assert.equal(rm.status, 200);
    assert.deepEqual((await w.as("carol").request(`GET ${path}`)).data, []);
  });
});
