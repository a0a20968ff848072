import { strict as assert } from "node:assert";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { cloneStore } from "../../../src/adapters/git/clone-store";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { setTrackingRefFromFiles } from "../../../src/adapters/git/tracking-ref-write";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

const ref = "refs/remotes/origin/main";

/** The reflog's last line with its seconds left out: the rest must be git's byte for byte. */
async function lastLogLine(root: string): Promise<string> {
  const lines = (await readFile(join(root, ".git", "logs", ref), "utf8")).split("\n").filter(Boolean);
  return lines[lines.length - 1]!.replace(/> \d+ ([+-]\d{4})$/, "> <seconds> $1");
}

describe("workspace: a tracking ref moved by writing its files as update-ref does (ADR 0494)", () => {
  let fx: RemoteFixture;
  const made: RepoContext[] = [];

  async function clone(name: string, env: Record<string, string> = {}): Promise<{ ctx: RepoContext; next: string }> {
    const root = await fx.clone(name);
    const runner = new GitRunner({ env: { ...ISOLATED_GIT_ENV, ...env } });
    const ctx = { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin" }) };
    made.push(ctx);
    // Commits the clone holds loose, as a fetch of a few objects leaves them; the first moved to by git
    // (a clone's tracking refs are packed and have no reflog: a Run's first fetch makes both).
    const tree = await git(root, ["write-tree"]);
    const at = { GIT_AUTHOR_DATE: "1700000000 +0000", GIT_COMMITTER_DATE: "1700000000 +0000" };
    const first = await git(root, ["commit-tree", tree, "-p", "HEAD", "-m", "first"], at);
    assert.equal((await runner.raw(["update-ref", ref, first], { cwd: root })).code, 0);
    const next = await git(root, ["commit-tree", tree, "-p", first, "-m", "next"], at);
    return { ctx, next };
  }

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
  });
  afterEach(async () => {
    for (const ctx of made.splice(0)) await ctx.net.dispose();
    await fx.cleanup();
  });

  it("writes the ref and the reflog line git writes, with no process", async () => {
    const a = await clone("by-git");
    const b = await clone("by-files");
    assert.equal(a.next, b.next);
    assert.equal((await a.ctx.git.raw(["update-ref", ref, a.next], { cwd: a.ctx.root })).code, 0);
    await cloneStore(b.ctx.git, b.ctx.root); // asked once per clone and process, as a Run has by then
    let calls = 0;
    const unwatch = watchGitProcesses(() => (calls += 1));
    try {
      assert.equal(await setTrackingRefFromFiles(b.ctx, ref, b.next), true);
    } finally {
      unwatch();
    }
    assert.equal(calls, 0);
    assert.equal(await git(b.ctx.root, ["rev-parse", ref]), b.next);
    assert.equal(await lastLogLine(b.ctx.root), await lastLogLine(a.ctx.root));
    await git(b.ctx.root, ["reflog", "show", "--format=%H", ref]);
    // The same value again: git writes nothing, and neither does this.
    const before = await readFile(join(b.ctx.root, ".git", "logs", ref), "utf8");
    assert.equal(await setTrackingRefFromFiles(b.ctx, ref, b.next), true);
    assert.equal(await readFile(join(b.ctx.root, ".git", "logs", ref), "utf8"), before);
  });

  it("leaves git to it, changing nothing, where the files are not certain", async () => {
    const { ctx, next } = await clone("unsure");
    const old = await git(ctx.root, ["rev-parse", ref]);
    const logFile = join(ctx.root, ".git", "logs", ref);
    const log = await readFile(logFile, "utf8");
    const unchanged = async (): Promise<void> => {
      assert.equal(await git(ctx.root, ["rev-parse", ref]), old);
      assert.equal(await readFile(logFile, "utf8"), log);
    };
    // Another writer's lock.
    await writeFile(join(ctx.root, ".git", `${ref}.lock`), "");
    assert.equal(await setTrackingRefFromFiles(ctx, ref, next), false);
    await rm(join(ctx.root, ".git", `${ref}.lock`));
    await unchanged();
    // An object the clone lacks, a branch (not a tracking ref), a ref with no reflog, a ref not there.
    assert.equal(await setTrackingRefFromFiles(ctx, ref, "0123456789abcdef0123456789abcdef01234567"), false);
    assert.equal(await setTrackingRefFromFiles(ctx, "refs/heads/main", next), false);
    assert.equal(await setTrackingRefFromFiles(ctx, "refs/remotes/origin/none", next), false);
    await rm(logFile);
    assert.equal(await setTrackingRefFromFiles(ctx, ref, next), false);
    await writeFile(logFile, log);
    await unchanged();
    // A committer's date or zone git would take from elsewhere.
    const dated = await clone("dated", { GIT_COMMITTER_DATE: "1700000000 +0000" });
    assert.equal(await setTrackingRefFromFiles(dated.ctx, ref, dated.next), false);
    // The ref the main checkout's HEAD names: git logs the move in HEAD's reflog too.
    await git(ctx.root, ["symbolic-ref", "HEAD", ref]);
    assert.equal(await setTrackingRefFromFiles(ctx, ref, next), false);
    await git(ctx.root, ["symbolic-ref", "HEAD", "refs/heads/main"]);
    await unchanged();
    // A packed ref: git reads packed-refs, so git writes it.
    await git(ctx.root, ["pack-refs", "--all"]);
    assert.equal(await setTrackingRefFromFiles(ctx, ref, next), false);
  });
});
