// Persistence with a data folder: bare repositories plus state written atomically; a restart
// finds everything. Also the built-in `demo` seed.
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startSandbox } from "../../../src/sandbox/start";
import { waitFor } from "../../support/wait-for";
import { FAR_APART_LINES, commitFile, divergeFarApart, gitOk, octokitFor } from "./support";

describe("sandbox persistence and seeds", function () {
  let tmp: string;
  beforeEach(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-persist-"));
  });
  afterEach(async () => fsp.rm(tmp, { recursive: true, force: true }));

  it("a GraphQL query leaves state.json as it was; a mutation saves it", async () => {
    const data = path.join(tmp, "data");
    const sb = await startSandbox({ dataDir: data, quiet: true });
    try {
      await sb.admin.createRepo({ owner: "acme", name: "kept", files: { "a.txt": "a\n" } });
      const { token } = await sb.admin.addUser({ login: "bob", repos: { "acme/kept": "write" } });
      const client = octokitFor(sb.apiUrl, token);
      const issue = (await client.issues.create({ owner: "acme", repo: "kept", title: "t" })).data;
      const statePath = path.join(data, "state.json");
      // The store replaces the file on every save (temp file and rename): a new inode is a save.
      const inode = async () => (await fsp.stat(statePath)).ino;
      const before = await inode();
      const read = await client.graphql<{ repository: { issue: { title: string } } }>(
        'query($n: Int!) { repository(owner: "acme", name: "kept") { issue(number: $n) { title } } }',
        { n: issue.number },
      );
      assert.equal(read.repository.issue.title, "t");
      assert.equal(await inode(), before, "a query rewrote state.json");
      await client.graphql('mutation($id: ID!) { addComment(input: { subjectId: $id, body: "saved" }) { clientMutationId } }', { id: issue.node_id });
      assert.notEqual(await inode(), before, "a mutation must save state.json");
    } finally {
      await sb.stop();
    }
  });

  it("a restart with the same --data folder finds repos, users, tokens, issues, comments, PRs and git history", async () => {
    const data = path.join(tmp, "data");
    const first = await startSandbox({ dataDir: data, quiet: true });
    await first.admin.createRepo({ owner: "acme", name: "kept", files: { "a.txt": "a\n" } });
    const { token } = await first.admin.addUser({ login: "bob", repos: { "acme/kept": "write" } });
    const ok1 = octokitFor(first.apiUrl, token);
    const issue = (await ok1.issues.create({ owner: "acme", repo: "kept", title: "survive", labels: ["bug"] })).data;
    const comment = (await ok1.issues.createComment({ owner: "acme", repo: "kept", issue_number: issue.number, body: "still here" })).data;
    const url = new URL(first.gitUrl("acme", "kept"));
    url.username = "x-access-token";
    url.password = token;
    const dir = path.join(tmp, "clone");
    await gitOk(["clone", "--quiet", url.toString(), dir], tmp);
    await gitOk(["checkout", "--quiet", "-b", "topic"], dir);
    const sha = await commitFile(dir, "b.txt", "b\n", "b");
    await gitOk(["push", "--quiet", "origin", "topic"], dir);
    const pr = (await ok1.pulls.create({ owner: "acme", repo: "kept", head: "topic", base: "main", title: "topic" })).data;
    const adminToken = first.adminToken;
    await first.stop();
    const leftovers = (await fsp.readdir(data)).filter((f) => f.endsWith(".tmp"));
    assert.deepEqual(leftovers, [], "no temp files are left behind");

    const second = await startSandbox({ dataDir: data, quiet: true });
    try {
      assert.equal(second.adminToken, adminToken);
      const ok2 = octokitFor(second.apiUrl, token);
      assert.equal((await ok2.users.getAuthenticated()).data.login, "bob");
      const got = (await ok2.issues.get({ owner: "acme", repo: "kept", issue_number: issue.number })).data;
      assert.equal(got.title, "survive");
      assert.deepEqual(
        got.labels.map((l) => (typeof l === "string" ? l : l.name)),
        ["bug"],
      );
      assert.equal((await ok2.issues.getComment({ owner: "acme", repo: "kept", comment_id: comment.id })).data.body, "still here");
      assert.equal((await ok2.pulls.get({ owner: "acme", repo: "kept", pull_number: pr.number })).data.head.sha, sha);
      const next = (await ok2.issues.create({ owner: "acme", repo: "kept", title: "after restart" })).data;
      assert.ok(next.id > comment.id, "ids keep increasing after a restart");
      const ref = (await ok2.git.getRef({ owner: "acme", repo: "kept", ref: "heads/topic" })).data;
      assert.equal(ref.object.sha, sha);
    } finally {
      await second.stop();
    }
  });

  it("a mergeability check whose git gave no exit code is no answer: never a conflict, not even after a restart (ADR 0472)", async () => {
    // The demo's stop sends SIGTERM to the sandbox's process group, so a merge-tree in flight dies
    // with it; read as merge-tree's exit 1 it was cached (and saved) as "conflicting" for that head
    // and base, and the next demo's resumed Run handed a clean pull request off as conflicting.
    const data = path.join(tmp, "data");
    const first = await startSandbox({ dataDir: data, quiet: true });
    await first.admin.createRepo({ owner: "acme", name: "kept", files: { "f.txt": FAR_APART_LINES } });
    const { token } = await first.admin.addUser({ login: "bob", repos: { "acme/kept": "write" } });
    const url = new URL(first.gitUrl("acme", "kept"));
    url.username = "x-access-token";
    url.password = token;
    // Both sides change f.txt, on lines far apart: merge-tree merges its content, cleanly.
    await divergeFarApart(url.toString(), tmp);
    const ok1 = octokitFor(first.apiUrl, token);
    const pr = (await ok1.pulls.create({ owner: "acme", repo: "kept", head: "topic", base: "main", title: "topic" })).data;
    // Real git, ended by a signal mid-merge: a merge driver (the bare repository's own config)
    // that notes it ran and sends SIGTERM to the merge-tree that started it.
    const bare = path.join(data, "repos", "acme", "kept.git");
    const marker = path.join(tmp, "merge-tree-killed");
    await fsp.mkdir(path.join(bare, "info"), { recursive: true });
    await fsp.writeFile(path.join(bare, "info", "attributes"), "f.txt merge=killer\n");
    await gitOk(["--git-dir", bare, "config", "merge.killer.driver", `echo killed >> '${marker}'; kill -TERM $PPID`], tmp);
    assert.equal((await ok1.pulls.get({ owner: "acme", repo: "kept", pull_number: pr.number })).data.mergeable, null);
    await waitFor(() => fsp.readFile(marker, "utf8"), { what: "the merge-tree started by the read to be killed" });
    // stop() waits for the background check and saves what it recorded.
    await first.stop();
    await gitOk(["--git-dir", bare, "config", "--unset", "merge.killer.driver"], tmp);
    await fsp.rm(path.join(bare, "info", "attributes"));

    const second = await startSandbox({ dataDir: data, quiet: true });
    try {
      const ok2 = octokitFor(second.apiUrl, token);
      const mergeable = await waitFor(async () => {
        const got = (await ok2.pulls.get({ owner: "acme", repo: "kept", pull_number: pr.number })).data;
        return got.mergeable === null ? null : { value: got.mergeable, state: got.mergeable_state };
      });
      assert.deepEqual(mergeable, { value: true, state: "clean" });
    } finally {
      await second.stop();
    }
  });

  it("the data folder is this user's alone: 0700, state.json (every token) 0600, an older 0755 folder and 0644 state narrowed (ADR 0222)", async () => {
    const mode = async (p: string) => ((await fsp.stat(p)).mode & 0o777).toString(8);
    const data = path.join(tmp, "data");
    // A folder and a state file as an older sandbox left them.
    const first = await startSandbox({ dataDir: data, quiet: true });
    await first.admin.addUser({ login: "bob" });
    await first.stop();
    await fsp.chmod(data, 0o755);
    await fsp.chmod(path.join(data, "state.json"), 0o644);
    await fsp.chmod(path.join(data, "repos"), 0o755);

    const again = await startSandbox({ dataDir: data, quiet: true });
    try {
      await again.admin.addUser({ login: "carol" });
      assert.deepEqual(
        {
          root: await mode(data),
          state: await mode(path.join(data, "state.json")),
          repos: await mode(path.join(data, "repos")),
          seeds: await mode(again.seedsDir),
        },
        { root: "700", state: "600", repos: "700", seeds: "700" },
      );
    } finally {
      await again.stop();
    }
    const fresh = path.join(tmp, "fresh");
    const other = await startSandbox({ dataDir: fresh, quiet: true });
    try {
      await other.admin.addUser({ login: "dan" });
      assert.deepEqual([await mode(fresh), await mode(path.join(fresh, "state.json"))], ["700", "600"]);
    } finally {
      await other.stop();
    }
  });

  it("a state file that is not a sandbox state is refused with a message naming it", async () => {
    const data = path.join(tmp, "bad");
    await fsp.mkdir(data, { recursive: true });
    await fsp.writeFile(path.join(data, "state.json"), JSON.stringify({ hello: "world" }));
    await assert.rejects(startSandbox({ dataDir: data, quiet: true }), /state\.json is not a sandbox state/);
  });

  it("the demo seed creates demo/shop with the workflow labels, once", async () => {
    const data = path.join(tmp, "demo");
    const sb = await startSandbox({ dataDir: data, seed: "demo", quiet: true });
    const labels = (await octokitFor(sb.apiUrl, sb.adminToken).issues.listLabelsForRepo({ owner: "demo", repo: "shop", per_page: 100 })).data.map(
      (l) => l.name,
    );
    for (const name of ["ready-for-agent", "in-progress", "ready-for-human"]) assert.ok(labels.includes(name), name);
    const count = (await octokitFor(sb.apiUrl, sb.adminToken).issues.listForRepo({ owner: "demo", repo: "shop", state: "all" })).data.length;
    await sb.stop();
    const again = await startSandbox({ dataDir: data, seed: "demo", quiet: true });
    try {
      assert.equal((await octokitFor(again.apiUrl, again.adminToken).issues.listForRepo({ owner: "demo", repo: "shop", state: "all" })).data.length, count);
    } finally {
      await again.stop();
    }
  });
});
