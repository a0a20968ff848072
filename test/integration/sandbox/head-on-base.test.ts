/**
 * A pull request's head that is its base's child is answered from the head commit's parent lines
 * (src/sandbox/head-on-base.ts, ADR 0492): `rev-list --count base..head` is not 0 and merge-tree's
 * tree is the head's. These cases hold both to what git answers for the same commits, and show git
 * asked where a graft or a replace ref could make it see other parents. Real git, no mocks.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CommitLookups } from "../../../src/sandbox/commit-lookup";
import { childOfBase, nothingAhead } from "../../../src/sandbox/head-on-base";
import { ObjectReaders } from "../../../src/sandbox/object-reader";
import { gitOk } from "./support";

describe("sandbox: a head that is its base's child, answered without git (integration)", function () {
  let tmp: string;
  let gitDir: string;
  let readers: { objects: ObjectReaders; commits: CommitLookups };
  const git = (...args: string[]): Promise<string> => gitOk(["--git-dir", gitDir, ...args], tmp);

  /** A commit adding `file` (with `text`) to `parent`'s tree; its sha. */
  async function commit(file: string, text: string, parent?: string): Promise<string> {
    const index = path.join(tmp, `index-${file}`);
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const run = (args: string[], input?: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const child = execFile("git", ["--git-dir", gitDir, ...args], { cwd: tmp, env }, (e, out) => (e ? reject(e) : resolve(out.trim())));
        if (input !== undefined) child.stdin?.end(input);
      });
    if (parent) await run(["read-tree", parent]);
    const blob = await run(["hash-object", "-w", "--stdin"], text);
    await run(["update-index", "--add", "--cacheinfo", `100644,${blob},${file}`]);
    const tree = await run(["write-tree"]);
    return run(["commit-tree", tree, "-m", `add ${file}`, ...(parent ? ["-p", parent] : [])]);
  }

  async function mergeTreeOfGit(base: string, head: string): Promise<string> {
    return (await git("merge-tree", "--write-tree", "--no-messages", base, head)).split("\n")[0]!;
  }

  beforeEach(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-head-on-base-"));
    gitDir = path.join(tmp, "repo.git");
    await gitOk(["init", "--bare", "--quiet", "--initial-branch=main", gitDir], tmp);
    readers = { objects: new ObjectReaders(), commits: new CommitLookups() };
  });
  afterEach(async () => {
    await readers.objects.stop();
    await readers.commits.stop();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it("a child of the base: merge-tree's tree (the head's), and commits ahead, as git says", async () => {
    const base = await commit("a.txt", "a\n");
    const head = await commit("b.txt", "b\n", base);
    const found = await childOfBase(readers, gitDir, base, head);
    assert.equal(found?.tree, await mergeTreeOfGit(base, head));
    assert.equal(await nothingAhead(readers, gitDir, base, head), false);
    assert.equal(await git("rev-list", "--count", `${base}..${head}`), "1");
  });

  it("the head is the base: nothing ahead, as rev-list's 0; not a child", async () => {
    const base = await commit("a.txt", "a\n");
    assert.equal(await childOfBase(readers, gitDir, base, base), null);
    assert.equal(await nothingAhead(readers, gitDir, base, base), true);
  });

  it("a head further on, or behind the base: not a child, and git answers", async () => {
    const base = await commit("a.txt", "a\n");
    const mid = await commit("b.txt", "b\n", base);
    const head = await commit("c.txt", "c\n", mid);
    assert.equal(await childOfBase(readers, gitDir, base, head), null);
    assert.equal(await nothingAhead(readers, gitDir, base, head), false);
    // The base's own child asked the other way round: the head (base) is behind, nothing ahead.
    assert.equal(await childOfBase(readers, gitDir, head, base), null);
    assert.equal(await nothingAhead(readers, gitDir, head, base), true);
    assert.equal(await git("rev-list", "--count", `${head}..${base}`), "0");
  });

  it("a graft or a replace ref (git may see other parents): not answered here", async () => {
    const base = await commit("a.txt", "a\n");
    const head = await commit("b.txt", "b\n", base);
    const other = await commit("c.txt", "c\n");
    // A graft gives the head another parent: merge-tree's tree for (base, head) is no longer the head's.
    await fsp.mkdir(path.join(gitDir, "info"), { recursive: true });
    await fsp.writeFile(path.join(gitDir, "info", "grafts"), `${head} ${other}\n`);
    assert.equal(await childOfBase(readers, gitDir, base, head), null);
    await fsp.rm(path.join(gitDir, "info", "grafts"));
    assert.equal((await childOfBase(readers, gitDir, base, head))?.tree, await mergeTreeOfGit(base, head));
    await git("replace", base, other);
    assert.equal(await childOfBase(readers, gitDir, base, head), null);
    await git("pack-refs", "--all");
    assert.equal(await childOfBase(readers, gitDir, base, head), null);
  });

  it("a head whose tree the repository lacks: not answered here (merge-tree would fail)", async () => {
    const base = await commit("a.txt", "a\n");
    const head = await commit("b.txt", "b\n", base);
    const tree = await git("rev-parse", `${head}^{tree}`);
    await fsp.rm(path.join(gitDir, "objects", tree.slice(0, 2), tree.slice(2)));
    assert.equal(await childOfBase(readers, gitDir, base, head), null);
  });
});
