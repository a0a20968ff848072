import { strict as assert } from "node:assert";
import { join } from "node:path";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { resolveRefs } from "../../../src/adapters/git/repo";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";

describe("workspace: several refs read with one git process (ADR 0400)", () => {
  let fx: RemoteFixture;
  let ctx: RepoContext;

  beforeEach(async () => {
    fx = await makeRemote();
    const root = await fx.clone("target");
    const runner = new GitRunner({ env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } });
    ctx = { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin" }) };
  });
  afterEach(async () => {
    await ctx.net.dispose();
    await fx.cleanup();
  });

  it("answers as rev-parse does, in order: packed refs, loose refs, a worktree's own HEAD, and null for what names nothing", async () => {
    const main = await git(ctx.root, ["rev-parse", "HEAD"]);
    const lane = join(ctx.root, ".worktrees", "lane");
    await git(ctx.root, ["worktree", "add", "-q", "-b", "lane", lane, "HEAD"]);
    const laneHead = await commitFiles(lane, { "lane.txt": "lane\n" }, "lane work");
    await git(ctx.root, ["pack-refs", "--all"]);
    // A loose ref made after the packing: both kinds are read.
    await git(ctx.root, ["update-ref", "refs/heads/loose", laneHead]);
    const tag = await git(ctx.root, ["tag", "-a", "-m", "annotated", "v1", main]).then(() => git(ctx.root, ["rev-parse", "v1"]));
    assert.notEqual(tag, main, "an annotated tag is an object of its own");

    assert.deepEqual(await resolveRefs(ctx, ["refs/remotes/origin/main", "refs/heads/loose", "refs/heads/nothing", "HEAD", "refs/tags/v1"]), [
      main,
      laneHead,
      null,
      main,
      main,
    ]);
    assert.deepEqual(await resolveRefs(ctx, ["HEAD", "refs/heads/main"], lane), [laneHead, main], "HEAD is the worktree's own");
  });

  it("a name that could split or steer the batch names nothing, and the others still answer in their places", async () => {
    const main = await git(ctx.root, ["rev-parse", "HEAD"]);
    assert.deepEqual(await resolveRefs(ctx, ["HEAD\nrefs/heads/main", "--batch", "", "refs/heads/main", "a b"]), [null, null, null, main, null]);
    assert.deepEqual(await resolveRefs(ctx, []), []);
  });
});
