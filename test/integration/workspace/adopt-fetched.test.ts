import { strict as assert } from "node:assert";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adoptObjects } from "../../../src/adapters/git/adopt-fetched";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { fetchRecords } from "../../../src/adapters/git/record-refs";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import { fetchRef } from "../../../src/adapters/git/repo";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

function contextOn(root: string): RepoContext {
  const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
  return { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin", env: ISOLATED_GIT_ENV }) };
}

/** Files `n` new files: over git's unpack limit (100 objects) the fetch keeps a pack, under it loose objects. */
function files(tag: string, n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${tag}/f${i}.txt`, `${tag} ${i}\n`]));
}

/** Every loose object and pack file left in an object directory (tmp_ files and .keep aside). */
function objectFiles(objects: string): string[] {
  if (!existsSync(objects)) return [];
  const loose = readdirSync(objects)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => readdirSync(join(objects, d)).map((n) => `${d}/${n}`));
  const packs = existsSync(join(objects, "pack")) ? readdirSync(join(objects, "pack")).filter((n) => !n.endsWith(".keep")) : [];
  return [...loose, ...packs];
}

/** `git fsck --strict` in the clone: every ref's whole history is there, in the clone's own store. */
async function assertWhole(root: string): Promise<void> {
  assert.equal(existsSync(join(root, ".git", "objects", "info", "alternates")), false);
  await git(root, ["fsck", "--strict", "--no-dangling", "--no-progress"]);
}

describe("workspace: a fetch's objects are moved into the clone, its ref set by update-ref (ADR 0473)", () => {
  let fx: RemoteFixture;
  let root: string;
  let ctx: RepoContext;
  let upstream: string;

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
    root = await fx.clone("target");
    ctx = contextOn(root);
    upstream = await fx.clone("upstream");
  });
  afterEach(async () => {
    await ctx.net.dispose();
    await fx.cleanup();
  });

  it("are the clone's own: nothing left in the private directory, and the history whole after it is removed", async () => {
    await commitFiles(upstream, files("big", 150), "a pack's worth");
    const tip = await commitFiles(upstream, { "small.txt": "loose\n" }, "a few loose objects");
    await git(upstream, ["push", "-q", "origin", "main"]);
    assert.equal(await fetchRef(ctx, "main", "refs/remotes/origin/main"), "fetched");
    assert.deepEqual(objectFiles(join(await ctx.net.dir(), "objects")), [], "every object moved");

    await ctx.net.dispose();
    assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), tip);
    await git(root, ["cat-file", "-e", `${tip}:big/f149.txt`]);
    await assertWhole(root);
  });

  it("a forced rewrite of the remote branch lands", async () => {
    await commitFiles(upstream, { "a.txt": "a\n" }, "a");
    await git(upstream, ["push", "-q", "origin", "main"]);
    await fetchRef(ctx, "main", "refs/remotes/origin/main");
    await git(upstream, ["reset", "-q", "--hard", "HEAD~1"]);
    const rewritten = await commitFiles(upstream, files("other", 120), "rewritten");
    await git(upstream, ["push", "-q", "--force", "origin", "main"]);

    assert.equal(await fetchRef(ctx, "main", "refs/remotes/origin/main"), "fetched");
    assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), rewritten);
    await ctx.net.dispose();
    await assertWhole(root);
  });

  it("a branch the remote no longer has deletes the stale local copy", async () => {
    await git(root, ["update-ref", "refs/remotes/origin/gone", "HEAD"]);
    assert.equal(await fetchRef(ctx, "gone", "refs/remotes/origin/gone"), "missing");
    await assert.rejects(git(root, ["rev-parse", "--verify", "--quiet", "refs/remotes/origin/gone"]));
  });

  it("two branches and the records fetched at once into one private directory lose no object", async function () {
    this.timeout(120_000);
    await git(upstream, ["checkout", "-q", "-b", "feature"]);
    await git(upstream, ["push", "-q", "origin", "feature"]);
    for (let round = 0; round < 5; round++) {
      await git(upstream, ["checkout", "-q", "main"]);
      const main = await commitFiles(upstream, files(`m${round}`, round % 2 ? 130 : 3), `main ${round}`);
      await git(upstream, ["checkout", "-q", "feature"]);
      const feature = await commitFiles(upstream, files(`f${round}`, round % 2 ? 3 : 130), `feature ${round}`);
      const record = await commitFiles(upstream, files(`r${round}`, 110), `record ${round}`);
      await git(upstream, ["reset", "-q", "--hard", "HEAD~1"]);
      await git(upstream, ["push", "-q", "--force", "origin", "main", "feature", `${record}:refs/records/${round}`]);

      const got = await Promise.all([
        fetchRef(ctx, "main", "refs/remotes/origin/main"),
        fetchRef(ctx, "feature", "refs/remotes/origin/feature"),
        fetchRef(ctx, "main", "refs/remotes/origin/main"),
        fetchRecords(ctx, new Map([[`refs/records/${round}`, record]])),
      ]);
      assert.deepEqual(got, ["fetched", "fetched", "fetched", "ok"], `round ${round}`);
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), main);
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/feature"]), feature);
      await git(root, ["cat-file", "-e", `${record}:r${round}/f109.txt`]);
    }
    await ctx.net.dispose();
    await assertWhole(root);
  });
});

describe("adoptObjects: what it moves, and what it leaves to the git still writing it", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "tr-adopt-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("moves finished loose objects and indexed packs, keeps objects the destination has, leaves tmp_ files, unindexed packs and .keep", async () => {
    const from = join(dir, "from");
    const to = join(dir, "to");
    const pack = `pack-${"a".repeat(40)}`;
    const writing = `pack-${"b".repeat(40)}`;
    const loose = `${"c".repeat(38)}`;
    await mkdir(join(from, "cc"), { recursive: true });
    await mkdir(join(from, "pack"), { recursive: true });
    await mkdir(join(from, "dd"), { recursive: true });
    await mkdir(join(to, "dd"), { recursive: true });
    await writeFile(join(from, "cc", loose), "loose");
    await writeFile(join(from, "cc", "tmp_obj_x"), "half");
    await writeFile(join(from, "dd", loose), "here already");
    await writeFile(join(to, "dd", loose), "here already");
    for (const ext of [".pack", ".rev", ".idx", ".keep"]) await writeFile(join(from, "pack", pack + ext), ext);
    await writeFile(join(from, "pack", `${writing}.pack`), "no index yet");

    assert.deepEqual(await adoptObjects(from, to), { loose: 1, packs: 1 });
    assert.equal(await readFile(join(to, "cc", loose), "utf8"), "loose");
    for (const ext of [".pack", ".rev", ".idx"]) assert.equal(await readFile(join(to, "pack", pack + ext), "utf8"), ext);
    assert.deepEqual(readdirSync(join(from, "cc")), ["tmp_obj_x"]);
    assert.deepEqual(readdirSync(join(from, "dd")), []);
    assert.deepEqual(readdirSync(join(from, "pack")).sort(), [`${pack}.keep`, `${writing}.pack`]);
    assert.deepEqual(readdirSync(join(to, "pack")).sort(), [pack + ".idx", pack + ".pack", pack + ".rev"]);
    assert.deepEqual(await adoptObjects(from, to), { loose: 0, packs: 0 }, "a second pass finds nothing new");
  });

  it("across filesystems (a copy linked into place) the fetched history is the clone's own", async () => {
    const fx = await makeRemote({ files: { "README.md": "base\n" } });
    // /dev/shm is another filesystem than the temp folder on most Linux machines: the copy path.
    const shm = existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(tmpdir()).dev ? "/dev/shm" : dir;
    const priv = await mkdtemp(join(shm, "tr-adopt-private-"));
    try {
      const root = await fx.clone("target");
      const sha = await fx.pushCommit(files("x", 140), "a pack's worth");
      await git(priv, ["init", "-q", "--bare", priv]);
      await writeFile(join(priv, "objects", "info", "alternates"), `${join(root, ".git", "objects")}\n`);
      await git(priv, ["fetch", "-q", "--no-tags", fx.remote, "+refs/heads/main:refs/fetched/heads/main"]);
      assert.deepEqual(await adoptObjects(join(priv, "objects"), join(root, ".git", "objects")), { loose: 0, packs: 1 });
      await rm(priv, { recursive: true, force: true });
      await git(root, ["update-ref", "refs/remotes/origin/main", sha]);
      await assertWhole(root);
      assert.deepEqual(
        readdirSync(join(root, ".git", "objects", "pack")).filter((n) => n.startsWith("tmp_")),
        [],
        "no temporary copy left",
      );
    } finally {
      await rm(priv, { recursive: true, force: true });
      await fx.cleanup();
    }
  });
});
