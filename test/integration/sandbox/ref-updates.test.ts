/**
 * The sandbox's own ref writes (src/sandbox/ref-updates.ts, ADR 0492): made in this process with
 * git's locks where no hook or config asks for git, and then what `git update-ref` would leave:
 * created, moved under a lease, refused on a stale lease or an existing ref, deleted. A packed ref
 * deleted, a tree on a branch, a repository with a reference-transaction hook (which must still
 * see every update) or a core.hooksPath: git writes, as before. Real git, no mocks.
 */
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CommitLookups } from "../../../src/sandbox/commit-lookup";
import { ConfigListings } from "../../../src/sandbox/config-state";
import { RefUpdates } from "../../../src/sandbox/ref-updates";
import { gitOk } from "./support";

describe("sandbox ref writes in this process, as git update-ref's (integration)", function () {
  let tmp: string;
  let gitDir: string;
  let commits: CommitLookups;
  let refs: RefUpdates;
  const git = (...args: string[]): Promise<string> => gitOk(["--git-dir", gitDir, ...args], tmp);
  const valueOf = async (ref: string): Promise<string | null> => {
    const out = await git("for-each-ref", "--format=%(objectname)", ref);
    return out === "" ? null : out;
  };

  async function commit(message: string, parent?: string): Promise<string> {
    const tree = await git("hash-object", "-w", "-t", "tree", "/dev/null");
    return git("commit-tree", tree, "-m", message, ...(parent ? ["-p", parent] : []));
  }

  beforeEach(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-ref-updates-"));
    gitDir = path.join(tmp, "repo.git");
    await gitOk(["init", "--bare", "--quiet", "--initial-branch=main", gitDir], tmp);
    commits = new CommitLookups();
    refs = new RefUpdates(commits, new ConfigListings());
  });
  afterEach(async () => {
    await commits.stop();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it("create, move under a lease, refuse a stale lease or an existing ref, delete: here, as git would", async () => {
    const a = await commit("a");
    const b = await commit("b", a);
    assert.equal(await refs.cas(gitDir, "refs/heads/main", a, ""), true);
    assert.equal(await valueOf("refs/heads/main"), a);
    assert.equal(await refs.cas(gitDir, "refs/heads/main", b, ""), false, "an existing ref is not created again");
    assert.equal(await refs.cas(gitDir, "refs/heads/main", b, b), false, "a stale lease");
    assert.equal(await valueOf("refs/heads/main"), a);
    assert.equal(await refs.cas(gitDir, "refs/heads/main", b, a), true);
    assert.equal(await valueOf("refs/heads/main"), b);
    assert.equal(await refs.cas(gitDir, "refs/heads/topic/x", a, ""), true);
    assert.equal(await refs.delete(gitDir, "refs/heads/topic/x", b), false, "a stale lease");
    assert.equal(await refs.delete(gitDir, "refs/heads/topic/x", a), true);
    assert.equal(await valueOf("refs/heads/topic/x"), null);
    await assert.rejects(fsp.access(path.join(gitDir, "refs", "heads", "topic")), "the folder the deleted ref leaves empty is removed, as git does");
    await refs.keepPullHead(gitDir, 7, a);
    await refs.keepPullHead(gitDir, 7, b);
    assert.equal(await valueOf("refs/pull/7/head"), b);
    // Written here: every one that changed something (the refusals asked git, which refused too).
    assert.equal(refs.taken, 6);
    assert.equal(await git("fsck", "--no-progress"), "");
  });

  it("a packed ref deleted, or a tree on a branch: git's (the packed ref deleted, the tree refused)", async () => {
    const a = await commit("a");
    await git("update-ref", "refs/heads/packed", a);
    await git("pack-refs", "--all");
    assert.equal(await refs.delete(gitDir, "refs/heads/packed", a), true);
    assert.equal(await valueOf("refs/heads/packed"), null);
    const tree = await git("hash-object", "-w", "-t", "tree", "/dev/null");
    assert.equal(await refs.cas(gitDir, "refs/heads/tree", tree, ""), false);
    assert.equal(await valueOf("refs/heads/tree"), null);
    assert.equal(refs.taken, 0);
  });

  it("a repository with a reference-transaction hook: git writes, and the hook sees every update", async () => {
    const a = await commit("a");
    const b = await commit("b", a);
    const log = path.join(tmp, "updates.log");
    await fsp.mkdir(path.join(gitDir, "hooks"), { recursive: true });
    const hook = path.join(gitDir, "hooks", "reference-transaction");
    await fsp.writeFile(hook, `#!/bin/sh\n[ "$1" = committed ] || exit 0\ncat >> '${log}'\n`, { mode: 0o755 });
    assert.equal(await refs.cas(gitDir, "refs/heads/topic", a, ""), true);
    assert.equal(await refs.cas(gitDir, "refs/heads/topic", b, a), true);
    await refs.keepPullHead(gitDir, 1, b);
    assert.equal(await refs.delete(gitDir, "refs/heads/topic", b), true);
    const zero = "0".repeat(40);
    assert.deepEqual((await fsp.readFile(log, "utf8")).trim().split("\n"), [
      `${zero} ${a} refs/heads/topic`,
      `${a} ${b} refs/heads/topic`,
      `${zero} ${b} refs/pull/1/head`,
      `${b} ${zero} refs/heads/topic`,
    ]);
    assert.equal(refs.taken, 0);
  });

  it("a repository with reflogs: git writes, HEAD's reflog included when its branch moves", async () => {
    const a = await commit("a");
    await fsp.mkdir(path.join(gitDir, "logs"), { recursive: true });
    await fsp.writeFile(path.join(gitDir, "logs", "HEAD"), "");
    assert.equal(await refs.cas(gitDir, "refs/heads/main", a, ""), true);
    assert.match(await fsp.readFile(path.join(gitDir, "logs", "HEAD"), "utf8"), new RegExp(`^0{40} ${a} `));
    assert.equal(refs.taken, 0);
  });

  it("core.hooksPath in the repository's config: git writes", async () => {
    const a = await commit("a");
    await git("config", "core.hooksPath", path.join(tmp, "hooks"));
    assert.equal(await refs.cas(gitDir, "refs/heads/main", a, ""), true);
    assert.equal(await valueOf("refs/heads/main"), a);
    assert.equal(refs.taken, 0);
  });
});
