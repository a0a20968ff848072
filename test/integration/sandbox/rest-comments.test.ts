// Conformance: issue comments through @octokit/rest (https://docs.github.com/rest/issues/comments).
import { strict as assert } from "node:assert";
import { closeWorld, errorOf, makeWorld, OWNER, REPO, status } from "./support";
import type { World } from "./support";

const repo = { owner: OWNER, repo: REPO };

describe("sandbox REST: issue comments", function () {
  let w: World;
  let n: number;
  before(async () => {
    w = await makeWorld();
    n = (await w.as("bob").issues.create({ ...repo, title: "talk" })).data.number;
  });
  after(async () => closeWorld(w));

  it("create returns 201 with html_url and author_association (https://docs.github.com/rest/issues/comments#create-an-issue-comment)", async () => {
    const c = await w.as("dave").issues.createComment({ ...repo, issue_number: n, body: "anyone may comment on a public repo" });
    assert.equal(c.status, 201);
    assert.equal(c.data.author_association, "NONE");
    assert.match(c.data.html_url, new RegExp(`/${OWNER}/${REPO}/issues/${n}#issuecomment-${c.data.id}$`));
    const mine = await w.as("alice").issues.createComment({ ...repo, issue_number: n, body: "owner" });
    assert.equal(mine.data.author_association, "COLLABORATOR");
  });

  it("list is ordered by id and paginates; since filters on updated_at (https://docs.github.com/rest/issues/comments#list-issue-comments)", async () => {
    for (let i = 0; i < 5; i++) await w.as("bob").issues.createComment({ ...repo, issue_number: n, body: `c${i}` });
    const all = await w.as("carol").paginate(w.as("carol").issues.listComments, { ...repo, issue_number: n, per_page: 3 });
    assert.equal(all.length, 7);
    const ids = all.map((c) => c.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    const page2 = await w.as("carol").issues.listComments({ ...repo, issue_number: n, per_page: 3, page: 2 });
    assert.deepEqual(
      page2.data.map((c) => c.id),
      ids.slice(3, 6),
    );
    const future = new Date(Date.now() + 60_000).toISOString();
    assert.deepEqual((await w.as("carol").issues.listComments({ ...repo, issue_number: n, since: future })).data, []);
  });

  it("get, update and delete by id; only the author or a writer may edit (https://docs.github.com/rest/issues/comments#update-an-issue-comment)", async () => {
    const c = await w.as("carol").issues.createComment({ ...repo, issue_number: n, body: "v1" });
    const got = await w.as("dave").issues.getComment({ ...repo, comment_id: c.data.id });
    assert.equal(got.data.body, "v1");
    assert.equal(await status(w.as("dave").issues.updateComment({ ...repo, comment_id: c.data.id, body: "hacked" })), 403);
    const upd = await w.as("carol").issues.updateComment({ ...repo, comment_id: c.data.id, body: "v2" });
    assert.equal(upd.data.body, "v2");
    assert.equal(await status(w.as("bob").issues.updateComment({ ...repo, comment_id: c.data.id, body: "writer edit" })), 200);
    assert.equal(await status(w.as("carol").issues.deleteComment({ ...repo, comment_id: c.data.id })), 204);
    assert.equal(await status(w.as("carol").issues.getComment({ ...repo, comment_id: c.data.id })), 404);
  });

  it("a body over 65536 characters is 422 (GitHub's documented limit)", async () => {
    const e = await errorOf(w.as("bob").issues.createComment({ ...repo, issue_number: n, body: "x".repeat(65537) }));
    assert.equal(e.status, 422);
  });

  it("the repository-wide comment list exists (https://docs.github.com/rest/issues/comments#list-issue-comments-for-a-repository)", async () => {
    const { data } = await w.as("carol").issues.listCommentsForRepo({ ...repo, per_page: 100 });
    assert.ok(data.length >= 7);
  });
});
