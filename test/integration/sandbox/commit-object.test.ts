/**
 * A merge's commit written by the sandbox (ADR 0479) is the one `git commit-tree` writes for the
 * same tree, parents, identities, message and second: the same id, an object git reads and fsck
 * accepts. Inputs git would write otherwise, and a repository whose config could change the bytes,
 * go to commit-tree. Real git, no mocks.
 */
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { makeCommit, tzOffset, writeCommit } from "../../../src/sandbox/commit-object";
import type { CommitInput } from "../../../src/sandbox/commit-object";
import { commitInitial, commitTree, gitOk as sandboxGit, initBare } from "../../../src/sandbox/git";

describe("sandbox merge commits without commit-tree (integration)", function () {
  let tmp: string;
  let gitDir: string;
  let tree: string;
  let base: string;
  let head: string;

  before(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-commit-obj-"));
    gitDir = path.join(tmp, "repo.git");
    await initBare(gitDir, "main");
    base = await commitInitial(gitDir, "main", { files: { "a.txt": "a\n" } }, "Initial commit");
    head = await commitInitial(gitDir, "feature", { files: { "a.txt": "a\n", "b.txt": "b\n" } }, "Add b");
    tree = (await sandboxGit(["rev-parse", `${head}^{tree}`], { gitDir })).trim();
  });

  after(async () => {
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  const identity = { name: "bob", email: "7+bob@users.noreply.sandbox.invalid" };
  const sandbox = { name: "Sandbox", email: "noreply@sandbox.invalid" };

  function envOf(input: CommitInput): Record<string, string> {
    const date = `${input.when} ${tzOffset(input.when)}`;
    return {
      GIT_AUTHOR_NAME: input.author.name,
      GIT_AUTHOR_EMAIL: input.author.email,
      GIT_COMMITTER_NAME: input.committer.name,
      GIT_COMMITTER_EMAIL: input.committer.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    };
  }

  it("the id commit-tree gives for the same inputs and second: a merge, a squash, messages of every shape", async () => {
    const when = 1_764_633_600;
    const messages = [
      "Merge pull request #3 from acme/feature\n\nAdd b\n",
      "Add b (#3)\n\nTicket #3, merged by Ticket Runner.\n",
      "no newline at the end",
      "Ünïcödé — 日本語 ✓\n\n* one\n* two\n",
      "\n\nleading blank lines\n\n\n",
      "",
    ];
    for (const parents of [[base, head], [base]]) {
      for (const message of messages) {
        const input: CommitInput = { tree, parents, author: identity, committer: sandbox, message, when };
        const ours = await writeCommit(gitDir, input);
        const theirs = await commitTree(gitDir, tree, parents, message, envOf(input));
        assert.equal(ours, theirs, JSON.stringify(message));
        assert.equal((await sandboxGit(["cat-file", "-t", ours!], { gitDir })).trim(), "commit");
      }
    }
    // Written again: the object already there is kept.
    const input: CommitInput = { tree, parents: [base], author: identity, committer: sandbox, message: "again\n", when };
    assert.equal(await writeCommit(gitDir, input), await writeCommit(gitDir, input));
    await sandboxGit(["fsck", "--strict", "--no-dangling"], { gitDir });
  });

  it("inputs commit-tree would write otherwise go to it: crud at an ident's end, a NUL or broken UTF-16 in the message", async () => {
    const ok: CommitInput = { tree, parents: [base], author: identity, committer: sandbox, message: "m\n", when: 1 };
    for (const odd of [
      { ...ok, author: { name: " bob.", email: identity.email } },
      { ...ok, committer: { name: "Sand<box>", email: sandbox.email } },
      { ...ok, message: "a\0b" },
      { ...ok, message: "\ud800" },
      { ...ok, parents: ["nope"] },
    ]) {
      assert.equal(await writeCommit(gitDir, odd), null, JSON.stringify(odd));
    }
  });

  it("makeCommit starts no git (after one config read); a repository that signs commits gets commit-tree's", async () => {
    const started: string[] = [];
    const stop = watchGitProcesses((args) => started.push(args.filter((a) => a !== "--git-dir" && a !== gitDir)[0] ?? ""));
    const env = {
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_COMMITTER_NAME: sandbox.name,
      GIT_COMMITTER_EMAIL: sandbox.email,
    };
    try {
      const first = await makeCommit(gitDir, tree, [base], "one\n", env);
      const second = await makeCommit(gitDir, tree, [base, head], "two\n", env);
      assert.deepEqual(started, ["config"]);
      assert.equal(
        (await sandboxGit(["log", "-1", "--format=%an <%ae>|%cn <%ce>|%B", first], { gitDir })).trim(),
        `bob <${identity.email}>|Sandbox <${sandbox.email}>|one`,
      );
      assert.equal((await sandboxGit(["rev-list", "--parents", "-n", "1", second], { gitDir })).trim(), `${second} ${base} ${head}`);
      await sandboxGit(["config", "i18n.commitEncoding", "UTF-8"], { gitDir });
      started.length = 0;
      await makeCommit(gitDir, tree, [base], "three\n", env);
      assert.deepEqual(started, ["config", "commit-tree"]);
    } finally {
      stop();
    }
  });
});
