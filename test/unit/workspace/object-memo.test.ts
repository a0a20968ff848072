/**
 * The commits and trees a Run read, kept by object store and id (ADR 0508): a second read answers
 * as the first did without reading the file again; an object not read yet (or absent) is read from
 * the store each time; blobs are never kept; one store's object is not another's.
 */
import { strict as assert } from "node:assert";
import { readdirSync, renameSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { knowCloneStore } from "../../../src/adapters/git/clone-store";
import { objectMemoStats, readCommit, readObject, readTree } from "../../../src/adapters/git/loose-read";
import { LruMemo } from "../../../src/adapters/lru-memo";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { commitFiles, git, makeTempDir } from "../../support/git-fixtures";

/** A context whose store is known, so nothing here starts git. */
function contextOf(repo: string): RepoContext {
  knowCloneStore(repo, { commonDir: join(repo, ".git"), dir: join(repo, ".git", "objects"), algorithm: "sha1" });
  return { root: repo, remote: "origin" } as RepoContext;
}

/** The path of a loose object's file. */
function looseFile(repo: string, id: string): string {
  return join(repo, ".git", "objects", id.slice(0, 2), id.slice(2));
}

describe("workspace: the commits and trees a Run read, kept (ADR 0508)", function () {
  this.timeout(30_000);
  // Two repositories in one folder: `repo` with one commit, `other` empty.
  let dir = "";
  let [repo, other, commit] = ["", "", ""];

  before(async () => {
    dir = await makeTempDir("tr-object-memo-");
    [repo, other] = [join(dir, "repo"), join(dir, "other")];
    for (const r of [repo, other]) await git(dir, ["init", "-q", "--initial-branch=main", r]);
    commit = await commitFiles(repo, { "a.txt": `a ${Math.random()}\n`, "dir/b.txt": "b\n" }, "first");
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a commit and a tree read again are answered from the memo, as the first read answered", async () => {
    const ctx = contextOf(repo);
    const first = await readCommit(ctx, commit);
    assert.ok(first);
    const tree = await readTree(ctx, first.tree);
    assert.ok(tree?.has("dir"));
    // Moved away: only the memo can answer now.
    renameSync(looseFile(repo, commit), `${looseFile(repo, commit)}.away`);
    renameSync(looseFile(repo, first.tree), `${looseFile(repo, first.tree)}.away`);
    try {
      const before = objectMemoStats();
      assert.deepEqual(await readCommit(ctx, commit), first);
      assert.deepEqual(await readTree(ctx, first.tree), tree);
      assert.equal(objectMemoStats().hits, before.hits + 2);
    } finally {
      renameSync(`${looseFile(repo, commit)}.away`, looseFile(repo, commit));
      renameSync(`${looseFile(repo, first.tree)}.away`, looseFile(repo, first.tree));
    }
  });

  it("keeps no blob, nothing absent, and nothing of one store for another", async () => {
    const ctx = contextOf(repo);
    const blob = (await git(repo, ["rev-parse", "HEAD:a.txt"])).trim();
    assert.equal((await readObject(ctx, blob))?.type, "blob");
    const size = objectMemoStats().size;
    renameSync(looseFile(repo, blob), `${looseFile(repo, blob)}.away`);
    try {
      assert.equal(await readObject(ctx, blob), null, "a blob was answered from the memo");
    } finally {
      renameSync(`${looseFile(repo, blob)}.away`, looseFile(repo, blob));
    }
    const absent = "0123456789abcdef0123456789abcdef01234567";
    assert.equal(await readObject(ctx, absent), null);
    assert.equal(objectMemoStats().size, size, "a blob or an absent object was kept");
    // The commit is kept for `repo`: `other` has no such object, and says so.
    assert.ok(await readCommit(ctx, commit));
    assert.deepEqual(readdirSync(join(other, ".git", "objects")).sort(), ["info", "pack"]);
    assert.equal(await readCommit(contextOf(other), commit), null);
  });

  it("the memo drops the least recently used first, and a hit counts as a use", () => {
    const m = new LruMemo<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    assert.equal(m.get("a"), 1);
    m.set("c", 3);
    assert.deepEqual([m.get("a"), m.get("b"), m.get("c"), m.size, m.hits], [1, undefined, 3, 2, 3]);
  });
});
