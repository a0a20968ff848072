// Conformance: the sandbox's REST issues API driven by the real @octokit/rest client.
import { strict as assert } from "node:assert";
import { closeWorld, errorOf, makeWorld, OWNER, REPO, status } from "./support";
import type { World } from "./support";

const repo = { owner: OWNER, repo: REPO };

describe("sandbox REST: users, repos, labels, issues", function () {
  let w: World;
  before(async () => {
    w = await makeWorld();
  });
  after(async () => closeWorld(w));

  describe("auth (https://docs.github.com/rest/authentication/authenticating-to-the-rest-api)", () => {
    it("GET /user names the token's user (https://docs.github.com/rest/users/users#get-the-authenticated-user)", async () => {
      const { data } = await w.as("bob").users.getAuthenticated();
      assert.equal(data.login, "bob");
      assert.equal(typeof data.id, "number");
    });

    it("a bad token is 401 Bad credentials, even on public data", async () => {
      const e = await errorOf(w.as("trsb_nope").repos.get(repo));
      assert.equal(e.status, 401);
      assert.equal(e.data.message, "Bad credentials");
    });

    it("no token: GET /user is 401, a public repo reads fine, a private repo is 404", async () => {
      assert.equal(await status(w.anonymous.users.getAuthenticated()), 401);
      assert.equal(await status(w.anonymous.repos.get(repo)), 200);
      assert.equal(await status(w.anonymous.repos.get({ owner: OWNER, repo: "secret" })), 404);
    });

    it("a private repo is 404 (not 403) to a user without access", async () => {
      assert.equal(await status(w.as("bob").repos.get({ owner: OWNER, repo: "secret" })), 404);
      assert.equal(await status(w.as("alice").repos.get({ owner: OWNER, repo: "secret" })), 200);
    });

    it("collaborator permission (https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user)", async () => {
      const perm = async (u: string) => (await w.as("alice").repos.getCollaboratorPermissionLevel({ ...repo, username: u })).data.permission;
      assert.equal(await perm("alice"), "admin");
      assert.equal(await perm("bob"), "write");
      assert.equal(await perm("carol"), "read");
      // Public repository: GitHub answers "read" for a non-collaborator.
      assert.equal(await perm("dave"), "read");
      assert.equal(await status(w.as("carol").repos.getCollaboratorPermissionLevel({ ...repo, username: "bob" })), 403);
    });
  });

  describe("repository (https://docs.github.com/rest/repos/repos#update-a-repository)", () => {
    it("GET shows default_branch, merge settings and the caller's permissions", async () => {
      const { data } = await w.as("bob").repos.get(repo);
      assert.equal(data.default_branch, "main");
      assert.equal(data.allow_squash_merge, true);
      assert.equal(data.delete_branch_on_merge, false);
      assert.deepEqual(data.permissions, { admin: false, maintain: false, push: true, triage: true, pull: true });
    });

    it("PATCH needs admin (403 for write) and changes settings", async () => {
      assert.equal(await status(w.as("bob").repos.update({ ...repo, delete_branch_on_merge: true })), 403);
      const { data } = await w.as("alice").repos.update({ ...repo, delete_branch_on_merge: true, allow_rebase_merge: false });
      assert.equal(data.delete_branch_on_merge, true);
      assert.equal(data.allow_rebase_merge, false);
      await w.as("alice").repos.update({ ...repo, delete_branch_on_merge: false, allow_rebase_merge: true });
    });

    it("PATCH default_branch to a branch that does not exist is 422", async () => {
      assert.equal(await status(w.as("alice").repos.update({ ...repo, default_branch: "nope" })), 422);
    });
  });

  describe("labels (https://docs.github.com/rest/issues/labels)", () => {
    it("a new repository has GitHub's default labels", async () => {
      const { data } = await w.as("bob").issues.listLabelsForRepo(repo);
      assert.ok(data.some((l) => l.name === "bug" && l.default));
    });

    it("create, then create again is 422 already_exists; get by name", async () => {
      const created = await w.as("bob").issues.createLabel({ ...repo, name: "ready-for-agent", color: "0e8a16", description: "go" });
      assert.equal(created.status, 201);
      const e = await errorOf(w.as("bob").issues.createLabel({ ...repo, name: "Ready-For-Agent" }));
      assert.equal(e.status, 422);
      assert.deepEqual((e.data.errors as unknown[])[0], { resource: "Label", code: "already_exists", field: "name" });
      const { data } = await w.as("carol").issues.getLabel({ ...repo, name: "ready-for-agent" });
      assert.equal(data.color, "0e8a16");
      assert.equal(await status(w.as("carol").issues.createLabel({ ...repo, name: "x" })), 403);
    });
  });

  describe("issues (https://docs.github.com/rest/issues/issues)", () => {
    it("create with labels and assignees; a non-pusher's labels and assignees are silently dropped", async () => {
      const a = await w.as("bob").issues.create({ ...repo, title: "First", body: "b", labels: ["ready-for-agent"], assignees: ["bob"] });
      assert.equal(a.status, 201);
      assert.deepEqual(
        a.data.labels.map((l) => (typeof l === "string" ? l : l.name)),
        ["ready-for-agent"],
      );
      assert.deepEqual(
        a.data.assignees?.map((u) => u.login),
        ["bob"],
      );
      const d = await w.as("dave").issues.create({ ...repo, title: "From outside", labels: ["ready-for-agent"], assignees: ["dave"] });
      assert.equal(d.status, 201);
      assert.deepEqual(d.data.labels, []);
      assert.deepEqual(d.data.assignees, []);
      assert.equal(d.data.author_association, "NONE");
    });

    it("list filters by state, labels (all of them), assignee, and sorts", async () => {
      const c = await w.as("bob").issues.create({ ...repo, title: "Third", labels: ["ready-for-agent", "bug"] });
      await w.as("bob").issues.update({ ...repo, issue_number: c.data.number, state: "closed" });
      const open = await w.as("carol").issues.listForRepo(repo);
      assert.deepEqual(
        open.data.map((i) => i.number),
        [2, 1],
      );
      const all = await w.as("carol").issues.listForRepo({ ...repo, state: "all", direction: "asc" });
      assert.deepEqual(
        all.data.map((i) => i.number),
        [1, 2, 3],
      );
      const both = await w.as("carol").issues.listForRepo({ ...repo, state: "all", labels: "ready-for-agent,bug" });
      assert.deepEqual(
        both.data.map((i) => i.number),
        [3],
      );
      const mine = await w.as("carol").issues.listForRepo({ ...repo, assignee: "bob" });
      assert.deepEqual(
        mine.data.map((i) => i.number),
        [1],
      );
      const none = await w.as("carol").issues.listForRepo({ ...repo, assignee: "none" });
      assert.deepEqual(
        none.data.map((i) => i.number),
        [2],
      );
      assert.equal(await status(w.as("carol").issues.listForRepo({ ...repo, state: "bogus" as "open" })), 422);
    });

    it("since filters on updated_at", async () => {
      const future = new Date(Date.now() + 3600_000).toISOString();
      const { data } = await w.as("carol").issues.listForRepo({ ...repo, state: "all", since: future });
      assert.deepEqual(data, []);
    });

    it("per_page/page with a Link header; octokit.paginate walks it", async () => {
      for (let i = 0; i < 5; i++) await w.as("bob").issues.create({ ...repo, title: `bulk ${i}` });
      const first = await w.as("carol").issues.listForRepo({ ...repo, state: "all", per_page: 2 });
      assert.match(first.headers.link ?? "", /rel="next"/);
      assert.match(first.headers.link ?? "", /rel="last"/);
      const every = await w.as("carol").paginate(w.as("carol").issues.listForRepo, { ...repo, state: "all", per_page: 2 });
      assert.equal(every.length, 8);
      assert.equal(new Set(every.map((i) => i.number)).size, 8);
    });

    it("get and PATCH title/body/state/labels/assignees; a reader cannot edit someone else's issue", async () => {
      const { data } = await w.as("bob").issues.update({ ...repo, issue_number: 2, title: "Renamed", labels: ["enhancement"], assignees: ["alice"] });
      assert.equal(data.title, "Renamed");
      assert.deepEqual(
        data.labels.map((l) => (typeof l === "string" ? l : l.name)),
        ["enhancement"],
      );
      assert.deepEqual(
        data.assignees?.map((u) => u.login),
        ["alice"],
      );
      const got = await w.as("carol").issues.get({ ...repo, issue_number: 2 });
      assert.equal(got.data.title, "Renamed");
      assert.equal(await status(w.as("carol").issues.update({ ...repo, issue_number: 1, title: "hijack" })), 403);
      assert.equal(await status(w.as("carol").issues.get({ ...repo, issue_number: 999 })), 404);
    });
  });

  describe("issue labels (https://docs.github.com/rest/issues/labels#add-labels-to-an-issue)", () => {
    it("add (creating unknown labels, as GitHub does), set, remove; removing an absent label is 404 'Label does not exist'", async () => {
      const n = (await w.as("bob").issues.create({ ...repo, title: "labels" })).data.number;
      const added = await w.as("bob").issues.addLabels({ ...repo, issue_number: n, labels: ["in-progress", "brand-new"] });
      assert.deepEqual(added.data.map((l) => l.name).sort(), ["brand-new", "in-progress"]);
      const set = await w.as("bob").issues.setLabels({ ...repo, issue_number: n, labels: ["bug"] });
      assert.deepEqual(
        set.data.map((l) => l.name),
        ["bug"],
      );
      const removed = await w.as("bob").issues.removeLabel({ ...repo, issue_number: n, name: "bug" });
      assert.deepEqual(removed.data, []);
      const e = await errorOf(w.as("bob").issues.removeLabel({ ...repo, issue_number: n, name: "bug" }));
      assert.equal(e.status, 404);
      assert.equal(e.data.message, "Label does not exist");
      assert.equal(await status(w.as("carol").issues.addLabels({ ...repo, issue_number: n, labels: ["bug"] })), 403);
    });
  });

  describe("assignees (https://docs.github.com/rest/issues/assignees)", () => {
    it("add answers 201 and silently skips users without push access; remove", async () => {
      const n = (await w.as("bob").issues.create({ ...repo, title: "assign" })).data.number;
      const add = await w.as("bob").issues.addAssignees({ ...repo, issue_number: n, assignees: ["bob", "carol", "ghost"] });
      assert.equal(add.status, 201);
      assert.deepEqual(
        add.data.assignees?.map((u) => u.login),
        ["bob"],
      );
      const rm = await w.as("bob").issues.removeAssignees({ ...repo, issue_number: n, assignees: ["bob"] });
      assert.deepEqual(rm.data.assignees, []);
    });
  });

  describe("events and timeline (https://docs.github.com/rest/issues/events)", () => {
    it("labeled events name the actor who applied the label", async () => {
      const n = (await w.as("bob").issues.create({ ...repo, title: "events" })).data.number;
      await w.as("alice").issues.addLabels({ ...repo, issue_number: n, labels: ["ready-for-agent"] });
      await w.as("bob").issues.createComment({ ...repo, issue_number: n, body: "hello" });
      const { data } = await w.as("carol").issues.listEvents({ ...repo, issue_number: n });
      const labeled = data.filter((e) => e.event === "labeled");
      assert.equal(labeled.length, 1);
      assert.equal(labeled[0]?.actor?.login, "alice");
      assert.equal((labeled[0] as { label?: { name: string } }).label?.name, "ready-for-agent");
      const timeline = await w.as("carol").issues.listEventsForTimeline({ ...repo, issue_number: n });
      assert.deepEqual(
        timeline.data.map((e) => e.event),
        ["labeled", "commented"],
      );
    });

    it("repository issue events carry ETag and X-Poll-Interval; If-None-Match gives 304 and costs nothing", async () => {
      const first = await w.as("carol").issues.listEventsForRepo(repo);
      assert.equal(first.headers["x-poll-interval"], "60");
      const etag = first.headers.etag;
      assert.ok(etag);
      const remaining = Number(first.headers["x-ratelimit-remaining"]);
      const e = await errorOf(w.as("carol").issues.listEventsForRepo({ ...repo, headers: { "if-none-match": etag } }));
      assert.equal(e.status, 304);
      const after = await w.as("carol").rateLimit.get();
      assert.equal(after.data.resources.core.remaining, remaining);
    });
  });
});
