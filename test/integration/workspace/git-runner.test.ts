/**
 * The git runner is simple-git, except where simple-git cannot do what a call needs (ADR 0150):
 * it never writes to a child's stdin, so a call that reads its input there (`cat-file --batch`,
 * `hash-object --stdin`, `update-index --index-info`, `commit-tree`) would wait until its timeout.
 * Those few go through git-stdin.ts. This test shows both halves, against a real repository.
 */
import { strict as assert } from "node:assert";
import { simpleGit } from "simple-git";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

describe("workspace: the git runner on simple-git", () => {
  let fx: RemoteFixture;
  let root: string;
  let blob: string;

  before(async () => {
    fx = await makeRemote({ files: { "README.md": "hello\n" } });
    root = await fx.clone("target");
    blob = await git(root, ["rev-parse", "HEAD:README.md"]);
  });
  after(async () => {
    await fx.cleanup();
  });

  it("simple-git cannot feed a call its stdin: `cat-file --batch` only ends when its timeout stops it", async () => {
    const sg = simpleGit({ baseDir: root, timeout: { block: 300 } });
    await assert.rejects(sg.raw(["cat-file", "--batch"]), /timeout/i);
  });

  it("the runner feeds it: one `cat-file --batch` returns the blob; calls without input go through simple-git", async () => {
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
    const res = await runner.raw(["cat-file", "--batch"], { cwd: root, input: `${blob}\n` });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout.toString("utf8"), /^[0-9a-f]{40} blob 6\nhello\n/);
    assert.equal(await runner.text(["rev-parse", "HEAD:README.md"], { cwd: root }), blob);
    // Exit codes are answers, not errors: 1 from --is-ancestor is false, anything else throws.
    assert.equal(await runner.test(["merge-base", "--is-ancestor", "HEAD", "HEAD"], { cwd: root }), true);
    await assert.rejects(runner.test(["merge-base", "--is-ancestor", "HEAD", "nope"], { cwd: root }), /merge-base/);
  });
});
