// Conformance: git smart HTTP (https://docs.github.com/get-started/git-basics/about-remote-repositories#cloning-with-https-urls)
// with the real git client: clone, fetch, push, --force-with-lease, and token checks.
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { cloneAs, closeWorld, commitFile, gitOk, makeWorld, OWNER, REPO, runGit } from "./support";
import type { World } from "./support";

describe("sandbox git over smart HTTP", function () {
  let w: World;
  before(async () => {
    w = await makeWorld();
  });
  after(async () => closeWorld(w));

  it("clones the initial commit created from `files`", async () => {
    const dir = await cloneAs(w, "carol");
    assert.equal(await fsp.readFile(path.join(dir, "README.md"), "utf8"), "# widgets\n");
    assert.equal(await gitOk(["rev-parse", "--abbrev-ref", "HEAD"], dir), "main");
  });

  it("anonymous clone of a public repo works; of a private repo it is refused", async () => {
    const dir = path.join(w.tmp, "anon");
    await gitOk(["clone", "--quiet", w.sb.gitUrl(OWNER, REPO), dir], w.tmp);
    const r = await runGit(["clone", "--quiet", w.sb.gitUrl(OWNER, "secret"), path.join(w.tmp, "anon-secret")], w.tmp);
    assert.notEqual(r.code, 0);
  });

  it("a writer pushes; another clone fetches it", async () => {
    const bob = await cloneAs(w, "bob");
    const sha = await commitFile(bob, "src/b.txt", "b\n", "add b");
    await gitOk(["push", "--quiet", "origin", "main"], bob);
    const carol = await cloneAs(w, "carol");
    assert.equal(await gitOk(["rev-parse", "HEAD"], carol), sha);
    await commitFile(bob, "src/c.txt", "c\n", "add c");
    await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/feature/x"], bob);
    await gitOk(["fetch", "--quiet", "origin"], carol);
    assert.equal(await gitOk(["rev-parse", "origin/feature/x"], carol), await gitOk(["rev-parse", "HEAD"], bob));
  });

  it("a reader cannot push; a bad token cannot clone a private repo", async () => {
    const carol = await cloneAs(w, "carol");
    await commitFile(carol, "nope.txt", "n\n", "nope");
    const r = await runGit(["push", "origin", "main"], carol);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /403|denied/i);
    // git sends credentials only after a 401 challenge, so (as on GitHub) a public clone never shows them.
    const bad = new URL(w.sb.gitUrl(OWNER, "secret"));
    bad.username = "x-access-token";
    bad.password = "trsb_wrong";
    const c = await runGit(["clone", "--quiet", bad.toString(), path.join(w.tmp, "bad")], w.tmp);
    assert.notEqual(c.code, 0);
  });

  it("--force-with-lease refuses when the remote moved, and succeeds when it did not", async () => {
    const a = await cloneAs(w, "bob");
    const b = await cloneAs(w, "alice");
    await commitFile(a, "lease.txt", "a\n", "a");
    await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/lease"], a);
    await gitOk(["fetch", "--quiet", "origin"], b);
    await gitOk(["checkout", "--quiet", "-b", "lease", "origin/lease"], b);
    await commitFile(b, "lease.txt", "b\n", "b");
    await gitOk(["push", "--quiet", "origin", "lease"], b);
    await gitOk(["commit", "--quiet", "--amend", "-m", "a2"], a);
    const stale = await runGit(["push", "--force-with-lease=lease:" + (await gitOk(["rev-parse", "HEAD~1"], a)), "origin", "HEAD:refs/heads/lease"], a);
    assert.notEqual(stale.code, 0);
    assert.match(stale.stderr, /stale info|rejected/);
    await gitOk(["fetch", "--quiet", "origin"], a);
    await gitOk(["push", "--quiet", "--force-with-lease=lease:origin/lease", "origin", "HEAD:refs/heads/lease"], a);
    assert.equal((await gitOk(["ls-remote", "origin", "refs/heads/lease"], a)).split("\t")[0], await gitOk(["rev-parse", "HEAD"], a));
  });

  it("a large push (gzip and chunked request bodies) goes through", async () => {
    const bob = await cloneAs(w, "bob");
    const big = Array.from({ length: 40_000 }, (_, i) => `line ${i} ${Math.random()}`).join("\n");
    for (let i = 0; i < 3; i++) await fsp.writeFile(path.join(bob, `big${i}.txt`), big + i);
    await gitOk(["add", "."], bob);
    await gitOk(["commit", "--quiet", "-m", "big"], bob);
    await gitOk(["-c", "http.postBuffer=65536", "push", "--quiet", "origin", "HEAD:refs/heads/big"], bob);
    const carol = await cloneAs(w, "carol");
    await gitOk(["fetch", "--quiet", "origin", "big"], carol);
    assert.equal(await gitOk(["rev-parse", "FETCH_HEAD"], carol), await gitOk(["rev-parse", "HEAD"], bob));
  });

  it("a fetch with a long negotiation (git gzips request bodies over 1 KB) works", async () => {
    const carol = await cloneAs(w, "carol");
    for (let i = 0; i < 60; i++) await gitOk(["commit", "--quiet", "--allow-empty", "-m", `local ${i}`], carol);
    const bob = await cloneAs(w, "bob");
    const sha = await commitFile(bob, "neg.txt", "n\n", "negotiate");
    await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/negotiate"], bob);
    await gitOk(["fetch", "--quiet", "origin", "negotiate"], carol);
    assert.equal(await gitOk(["rev-parse", "FETCH_HEAD"], carol), sha);
  });

  it("createRepo fromDir commits a folder's files (respecting .gitignore) as the first commit", async () => {
    const src = path.join(w.sb.seedsDir, "seed-src");
    await fsp.mkdir(path.join(src, "lib"), { recursive: true });
    await fsp.writeFile(path.join(src, "lib", "x.js"), "module.exports = 1;\n");
    await fsp.writeFile(path.join(src, ".gitignore"), "secret.txt\n");
    await fsp.writeFile(path.join(src, "secret.txt"), "no\n");
    await w.sb.admin.createRepo({ owner: OWNER, name: "seeded", fromDir: src, defaultBranch: "trunk" });
    await w.sb.admin.setRole("bob", `${OWNER}/seeded`, "read");
    const dir = await cloneAs(w, "bob", OWNER, "seeded");
    assert.equal(await gitOk(["rev-parse", "--abbrev-ref", "HEAD"], dir), "trunk");
    assert.equal(await fsp.readFile(path.join(dir, "lib", "x.js"), "utf8"), "module.exports = 1;\n");
    await assert.rejects(fsp.access(path.join(dir, "secret.txt")));
  });

  it("createRepo fromDir refuses a folder outside the sandbox's seed folder, and creates nothing (ADR 0222)", async () => {
    const home = path.join(w.tmp, "someones-home");
    await fsp.mkdir(path.join(home, ".ssh"), { recursive: true });
    await fsp.writeFile(path.join(home, ".ssh", "id_ed25519"), "PRIVATE KEY\n");
    // A link inside the seed folder that leads out of it is refused too.
    await fsp.symlink(home, path.join(w.sb.seedsDir, "link-out"));
    for (const [name, fromDir] of [
      ["stolen", home],
      ["linked", path.join(w.sb.seedsDir, "link-out")],
      ["dotdot", path.join(w.sb.seedsDir, "..", "..")],
      ["seeds", w.sb.seedsDir],
    ] as const) {
      await assert.rejects(
        w.sb.admin.createRepo({ owner: OWNER, name, fromDir }),
        (e: Error) => /fromDir must be a folder inside this sandbox's seed folder/.test(e.message) && /Nothing was created/.test(e.message),
      );
      const res = await fetch(`${w.sb.apiUrl}/repos/${OWNER}/${name}`, { headers: { authorization: `Bearer ${w.sb.adminToken}` } });
      assert.equal(res.status, 404, `${name} was not created`);
    }
  });
});
