import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, gitEnv, makeRemote } from "../../support/git-fixtures";
import { workspaceOn } from "./support/workspace-fixture";

/** A plain `git fetch` of the same ref by another process (a second Run, a person): exit code only. */
function outsideFetch(root: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile("git", ["fetch", "--quiet", "--no-tags", "origin", "+refs/heads/main:refs/remotes/origin/main"], { cwd: root, env: gitEnv() }, (error) =>
      resolve(error ? ((error as { code?: number }).code ?? 1) : 0),
    );
  });
}

describe("workspace: Lanes fetching the base at once", () => {
  let fx: RemoteFixture;

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n" } });
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("never fail each other (cannot lock ref refs/remotes/origin/main), beside other processes fetching the same ref", async function () {
    this.timeout(120_000);
    const root = await fx.clone("target");
    // Four Lanes, each with its own Workspace over the one clone, as in a multi-Lane Run.
    const lanes = [0, 1, 2, 3].map(() => workspaceOn(root));
    const upstream = await fx.clone("upstream");
    let failures = 0;
    for (let round = 0; round < 12; round++) {
      await commitFiles(upstream, { [`r${round}.txt`]: `${round}\n` }, `round ${round}`);
      await git(upstream, ["push", "-q", "origin", "main"]);
      const tip = await git(fx.remote, ["rev-parse", "main"]);
      const ours = lanes.map((ws) =>
        ws.fetchBase("main").catch((e: unknown) => {
          failures++;
          return String(e);
        }),
      );
      const theirs = [outsideFetch(root), outsideFetch(root)];
      const got = await Promise.all(ours);
      await Promise.all(theirs);
      assert.deepEqual(got, ["remote", "remote", "remote", "remote"], `round ${round}`);
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), tip);
    }
    assert.equal(failures, 0);
  });
});
