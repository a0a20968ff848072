import { strict as assert } from "node:assert";
import { git, makeRemote } from "../../support/git-fixtures";
import { waitFor } from "../../support/wait-for";

describe("test support: git fixtures", () => {
  it("makes a bare remote with main, clones it, commits and pushes", async () => {
    const fx = await makeRemote({ files: { "a.txt": "a\n" } });
    try {
      const one = await fx.clone("one", { singleBranch: true });
      assert.equal(await git(one, ["rev-parse", "--abbrev-ref", "HEAD"]), "main");
      const sha = await fx.pushCommit({ "b.txt": "b\n" }, "second");
      await git(one, ["pull", "-q", "--ff-only"]);
      assert.equal(await git(one, ["rev-parse", "HEAD"]), sha);
    } finally {
      await fx.cleanup();
    }
  });

  it("waitFor resolves on the first truthy probe and fails at the deadline", async () => {
    let n = 0;
    assert.equal(await waitFor(() => (++n >= 3 ? n : 0), { intervalMs: 1 }), 3);
    await assert.rejects(
      waitFor(() => false, { timeoutMs: 30, intervalMs: 5, what: "never" }),
      /never did not hold/,
    );
  });
});
