/**
 * The merge method comes from what the repository allows (GitHub's `allow_merge_commit`,
 * `allow_squash_merge`, `allow_rebase_merge` on the repository object, OpenAPI `repos/get`; ADR
 * 0242). The sandbox honours the flags as GitHub does: a merge with a method the repository does not
 * allow is 405 ("Squash merges are not allowed on this repository."; OpenAPI `pulls/merge`), and a
 * repository keeps at least one method on.
 */
import { strict as assert } from "node:assert";
import { checkResponse } from "../../support/openapi-reference";
import { RunWorld } from "./run-helpers";

describe("run (integration): the merge method the repository allows", function () {
  this.timeout(180_000);
  let w: RunWorld;
  before(async () => {
    w = await RunWorld.make();
  });
  after(async () => w?.dispose());

  it("a repository that allows only merge commits: the configured squash gives way, and the ticket merges with a merge commit", async () => {
    const patched = await w.octokit.request("PATCH /repos/{owner}/{repo}", {
      owner: w.target.owner,
      repo: w.target.repo,
      allow_squash_merge: false,
      allow_rebase_merge: false,
    });
    assert.deepEqual(checkResponse("PATCH /repos/{owner}/{repo}", patched.status, patched.data), []);
    assert.deepEqual([patched.data.allow_merge_commit, patched.data.allow_squash_merge, patched.data.allow_rebase_merge], [true, false, false]);
    const [n] = await w.tickets([w.ticket("merged by commit")]);
    const r = await w.cliDone(["run"]);
    const said = `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;
    assert.equal(r.code, 0, said);
    assert.ok(
      r.out.some((l) => l.includes(`#${n} merge: ✅ merged (merge)`)),
      said,
    );
    assert.match(said, /does not allow the "squash" merge method that ticket-runner\.json names \(allow_squash_merge is off\); this Run merges with "merge"/);
    const pr = (await w.pulls()).find((p) => p.head.ref.startsWith(`agent/${n}-`));
    assert.ok(pr?.merged_at, said);
  });

  it("the sandbox keeps one merge method on, as GitHub does", async () => {
    const refused = await w.octokit.request("PATCH /repos/{owner}/{repo}", { owner: w.target.owner, repo: w.target.repo, allow_merge_commit: false }).then(
      () => null,
      (e: { status?: number; response?: { data?: unknown } }) => e,
    );
    assert.equal(refused?.status, 422);
    assert.match(JSON.stringify(refused?.response?.data), /allow at least one merge strategy/);
  });
});
