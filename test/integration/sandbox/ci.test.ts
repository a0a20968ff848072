// Sandbox CI: a push to an open PR's head (or opening the PR) runs the repo's ciCommand in a
// temporary checkout and reports a check run queued -> in_progress -> completed
// (shapes per https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference).
import { strict as assert } from "node:assert";
import { waitFor } from "../../support/wait-for";
import { cloneAs, closeWorld, commitFile, gitOk, makeWorld, OWNER, REPO } from "./support";
import type { World } from "./support";

const repo = { owner: OWNER, repo: REPO };
const CI = ["node", "-e", "process.exit(require('fs').existsSync('FAIL') ? 1 : 0)"];

describe("sandbox CI", function () {
  let w: World;
  let dir: string;
  before(async () => {
    w = await makeWorld({ ciCommand: CI });
    dir = await cloneAs(w, "bob");
  });
  after(async () => closeWorld(w));

  async function runFor(sha: string, status = "completed") {
    return waitFor(
      async () => {
        const runs = (await w.as("bob").checks.listForRef({ ...repo, ref: sha })).data.check_runs;
        const run = runs.find((r) => r.name === "sandbox-ci");
        return run && run.status === status ? run : null;
      },
      { what: `sandbox-ci ${status} on ${sha}`, timeoutMs: 20_000 },
    );
  }

  it("opening a PR runs CI on its head; a later push to the head runs it again", async () => {
    await gitOk(["checkout", "--quiet", "-b", "ci/one"], dir);
    const sha = await commitFile(dir, "ok.txt", "ok\n", "ok");
    await gitOk(["push", "--quiet", "origin", "ci/one"], dir);
    assert.equal((await w.as("bob").checks.listForRef({ ...repo, ref: sha })).data.total_count, 0, "no PR yet, so no CI");
    await w.as("bob").pulls.create({ ...repo, head: "ci/one", base: "main", title: "ci" });
    const first = await runFor(sha);
    assert.equal(first.conclusion, "success");
    const failing = await commitFile(dir, "FAIL", "x\n", "break it");
    await gitOk(["push", "--quiet", "origin", "ci/one"], dir);
    const second = await runFor(failing);
    assert.equal(second.conclusion, "failure");
    assert.match(second.output.summary ?? "", /exited with 1/);
  });

  it("scriptCi overrides the outcome and delays it, so queued and in_progress are visible", async () => {
    await w.sb.admin.scriptCi(`${OWNER}/${REPO}`, { conclusion: "failure", delayMs: 3000 });
    await gitOk(["checkout", "--quiet", "-B", "ci/two", "origin/main"], dir);
    const sha = await commitFile(dir, "two.txt", "2\n", "two");
    await gitOk(["push", "--quiet", "origin", "ci/two"], dir);
    await w.as("bob").pulls.create({ ...repo, head: "ci/two", base: "main", title: "two" });
    await runFor(sha, "queued");
    await runFor(sha, "in_progress");
    const done = await runFor(sha, "completed");
    assert.equal(done.conclusion, "failure");
    await w.sb.admin.scriptCi(`${OWNER}/${REPO}`, null);
  });
});
