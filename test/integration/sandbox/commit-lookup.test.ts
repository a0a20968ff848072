/**
 * The sandbox answers "which commit does this name point at" from one long-lived `git cat-file
 * --batch-check` per repository (src/sandbox/commit-lookup.ts, ADR 0471). These cases hold it to
 * what `git rev-parse --verify` answered, one process a question: refs moved, made, deleted and
 * packed by other processes between two questions, objects written loose or in a new pack after
 * the batch started, odd names; and to its bounds: a killed batch is restarted, a repository it
 * cannot read is asked the old way, and stop() leaves no process. Real git (2.39), no mocks.
 */
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CommitLookups } from "../../../src/sandbox/commit-lookup";
import { revParseName } from "../../../src/sandbox/git";
import { processTable } from "../../support/processes";
import { gitOk } from "./support";

/** The batch processes of `gitDir` that are running. */
function batchesOf(gitDir: string): number[] {
  return processTable()
    .filter((p) => p.state !== "Z" && p.command.includes("cat-file --batch-check") && p.command.includes(gitDir))
    .map((p) => p.pid);
}

/** A commit with `message` on the empty tree (and `parent`), written into `gitDir`; its sha. */
async function commit(gitDir: string, tmp: string, message: string, parent?: string): Promise<string> {
  const tree = await gitOk(["--git-dir", gitDir, "hash-object", "-w", "-t", "tree", "/dev/null"], tmp);
  return gitOk(["--git-dir", gitDir, "commit-tree", tree, "-m", message, ...(parent ? ["-p", parent] : [])], tmp);
}

describe("sandbox commit lookups: one cat-file per repository, answering as rev-parse did (integration)", function () {
  let tmp: string;
  let gitDir: string;
  let lookups: CommitLookups;
  const git = (...args: string[]): Promise<string> => gitOk(["--git-dir", gitDir, ...args], tmp);

  beforeEach(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-lookup-"));
    gitDir = path.join(tmp, "repo.git");
    await gitOk(["init", "--bare", "--quiet", "--initial-branch=main", gitDir], tmp);
    lookups = new CommitLookups();
  });

  afterEach(async () => {
    await lookups.stop();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it("sees every ref change other processes make between two questions, with one process", async () => {
    const c1 = await commit(gitDir, tmp, "one");
    const c2 = await commit(gitDir, tmp, "two", c1);
    await git("update-ref", "refs/heads/main", c2);
    assert.equal(await lookups.commit(gitDir, "refs/heads/main"), c2);
    const pid = batchesOf(gitDir);
    assert.equal(pid.length, 1, "a batch is running for the repository");

    await git("update-ref", "refs/heads/main", c1);
    assert.equal(await lookups.commit(gitDir, "refs/heads/main"), c1, "a loose ref moved");
    assert.equal(await lookups.commit(gitDir, "refs/heads/topic"), null);
    await git("update-ref", "refs/heads/topic", c2);
    assert.equal(await lookups.commit(gitDir, "refs/heads/topic"), c2, "a ref made after the question that missed it");
    await git("pack-refs", "--all", "--prune");
    assert.equal(await lookups.commit(gitDir, "refs/heads/topic"), c2, "a ref only in packed-refs");
    await git("update-ref", "refs/heads/topic", c1);
    assert.equal(await lookups.commit(gitDir, "refs/heads/topic"), c1, "a packed ref moved (loose again)");
    await git("update-ref", "-d", "refs/heads/topic");
    assert.equal(await lookups.commit(gitDir, "refs/heads/topic"), null, "a ref deleted from packed-refs and loose");
    await git("update-ref", "refs/heads/later", c2);
    await git("pack-refs", "--all", "--prune");
    assert.equal(await lookups.commit(gitDir, "refs/heads/later"), c2, "packed-refs rewritten after the batch read it");

    assert.equal(lookups.started, 1);
    assert.deepEqual(batchesOf(gitDir), pid, "the same process answered every question");
  });

  it("finds objects written after it started, loose and in a new pack, and a sha it missed once", async () => {
    const c1 = await commit(gitDir, tmp, "one");
    await git("update-ref", "refs/heads/main", c1);
    assert.equal(await lookups.commit(gitDir, "refs/heads/main"), c1);
    // A sha asked before its commit exists (a check run posted for a commit not pushed yet).
    const text = path.join(tmp, "later.txt");
    const emptyTree = await git("hash-object", "-t", "tree", "/dev/null");
    await fsp.writeFile(text, `tree ${emptyTree}\nauthor A <a@example.invalid> 0 +0000\ncommitter A <a@example.invalid> 0 +0000\n\nlater\n`);
    const later = await git("hash-object", "-t", "commit", text);
    assert.equal(await lookups.commit(gitDir, later), null);
    assert.equal(await git("hash-object", "-w", "-t", "commit", text), later);
    assert.equal(await lookups.commit(gitDir, later), later, "written loose after the miss");
    // Every loose object moved into a pack the batch has not seen; a new commit packed at once.
    await git("repack", "-a", "-d", "-q");
    await git("prune-packed");
    assert.equal(await lookups.commit(gitDir, later), later, "moved from loose into a new pack");
    const packed = await commit(gitDir, tmp, "packed", later);
    await git("repack", "-d", "-q");
    await git("prune-packed");
    assert.equal(await lookups.commit(gitDir, packed), packed, "first asked when it is only in a new pack");
    assert.equal(lookups.started, 1);
  });

  it("answers odd names as `git rev-parse --verify --quiet <name>^{commit}` does", async () => {
    const c1 = await commit(gitDir, tmp, "one");
    const c2 = await commit(gitDir, tmp, "two", c1);
    await git("update-ref", "refs/heads/main", c2);
    await git("update-ref", "refs/heads/b", c1);
    await git("tag", "-a", "-m", "tag", "v1", c1);
    const tree = await git("rev-parse", `${c1}^{tree}`);
    const names = [
      "refs/heads/main",
      c1,
      c1.slice(0, 7),
      tree,
      "0".repeat(40),
      "refs/tags/v1",
      "refs/heads/main^",
      "refs/heads/main~1",
      "refs/heads/main^{/one}",
      "refs/heads/main..b",
      "refs/heads/b...refs/heads/main",
      "refs/heads/ma in",
      " refs/heads/main",
      "refs/heads/main ",
      "refs/heads/main@{0}",
      "refs/heads/main:x",
      "refs/heads/-x",
      "-x",
      "--all",
      "refs/heads/",
      "refs/heads/main^{tree}",
      "refs/heads/ma\nin",
      "refs/heads/main\r",
      ":/one",
      "",
      "refs/heads/ü",
      "refs/heads/\ud800",
    ];
    await git("update-ref", "refs/heads/ü", c1);
    for (const name of names) {
      const before = await revParseName(gitDir, `${name}^{commit}`);
      assert.equal(await lookups.commit(gitDir, name), before, `the answer for ${JSON.stringify(name)}`);
    }
    assert.equal(await lookups.isTree(gitDir, tree), true);
    assert.equal(await lookups.isTree(gitDir, c1), false, "a commit is not a tree (its tree is)");
    assert.equal(await lookups.isTree(gitDir, "1".repeat(40)), false);
    assert.equal(lookups.started, 1, "none of them stopped the batch");
  });

  it("a batch killed under it is restarted by the next question; stop() leaves none running", async () => {
    const c1 = await commit(gitDir, tmp, "one");
    await git("update-ref", "refs/heads/main", c1);
    assert.equal(await lookups.commit(gitDir, "refs/heads/main"), c1);
    const [pid] = batchesOf(gitDir);
    assert.ok(pid);
    process.kill(pid, "SIGKILL");
    // Questions asked while it dies are answered too (by rev-parse, or by the next batch).
    const answers = await Promise.all([1, 2, 3].map(() => lookups.commit(gitDir, "refs/heads/main")));
    assert.deepEqual(answers, [c1, c1, c1]);
    assert.equal(await lookups.commit(gitDir, "refs/heads/main"), c1);
    assert.equal(batchesOf(gitDir).length, 1);
    assert.notEqual(batchesOf(gitDir)[0], pid);
    await lookups.stop();
    assert.deepEqual(batchesOf(gitDir), []);
    assert.equal(await lookups.commit(gitDir, "refs/heads/main"), c1, "after stop, asked the old way");
    assert.deepEqual(batchesOf(gitDir), [], "and no batch started again");
  });

  it("a repository it cannot read is asked the old way, with no batch started again for it", async () => {
    const missing = path.join(tmp, "gone.git");
    assert.equal(await lookups.commit(missing, "refs/heads/main"), null);
    assert.equal(await lookups.commit(missing, "refs/heads/main"), null);
    assert.equal(lookups.started, 1);
    // Made afresh (createRepo closes the repository's batch first): batches again.
    await gitOk(["init", "--bare", "--quiet", missing], tmp);
    const c1 = await commit(missing, tmp, "one");
    await gitOk(["--git-dir", missing, "update-ref", "refs/heads/main", c1], tmp);
    await lookups.close(missing);
    assert.equal(await lookups.commit(missing, "refs/heads/main"), c1);
    assert.equal(lookups.started, 2);
  });
});
