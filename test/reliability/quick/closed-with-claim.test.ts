/**
 * Found by the kill trials (seed 1069): a Run killed after its merge landed, before it finished the
 * claim. The issue is closed (the merge's "Closes #n"), but it still carries the Run's claim: a
 * lease reading "running", in-progress, the bot assigned, and the State file. Built here directly,
 * then the real `ticket-runner run`. Expected: the sweep finishes the leftover lease and takes
 * in-progress off, then removes the State file; no lease outlives its Run.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { stateRecordRef } from "../../../src/core/schemas/state-file";
import { join } from "node:path";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { createOctokit } from "../../../src/adapters/github/client";
import { OctokitTracker } from "../../../src/adapters/github/octokit-tracker";
import { NodeHost } from "../../../src/adapters/node-host";
import { createClaimGate } from "../../../src/core/claims/claim-protocol";
import { DEMO_ISSUES } from "../../../src/sandbox/seeds/demo-project";
import { realClock } from "../../integration/claims/claims-sandbox";
import { checkLeases, checkStateFiles, viewTickets } from "../chaos/observe";
import { CLI, startRun } from "../chaos/run-process";
import { ChaosWorld, gitOk } from "../chaos/world";
import { record } from "../support/figures";

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe("reliability: a closed issue that still carries a killed Run's claim", function () {
  this.timeout(180_000);
  let world: ChaosWorld;

  before(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    world = await ChaosWorld.start();
  });
  after(async () => world?.stop());

  it("the next Run's sweep finishes the lease, takes in-progress off, then drops the State file", async () => {
    const t = await world.target({ name: "closed-claim", issues: [DEMO_ISSUES[0]!], config: { lanes: 1 } });
    const host = await world.host(t, "host-a");
    // The killed Run's claim, made by the real protocol as the bot on host-a.
    const tracker = new OctokitTracker(createOctokit({ apiUrl: world.sandbox.apiUrl, token: t.token, log: quiet }), { owner: t.owner, repo: t.name });
    const gate = createClaimGate({
      tracker,
      runRoot: new FsRunRoot(mkdtempSync(join(tmpdir(), "tr-rel-closed-"))),
      host: { id: "cloud-closed-claim-host-a", name: "host-a", kind: "cloud" },
      clock: realClock,
      log: quiet,
      labels: { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human", hostLabels: false },
      lease: { ttlMinutes: 45, heartbeatMinutes: 30, settleMs: 100 },
      holder: "machine",
      runId: "2026-01-01T00-00-00-000",
      pid: 4_194_303,
    });
    const got = await gate.claim(1);
    assert.equal(got.kind, "won");
    if (got.kind !== "won") return;
    await gate.markStage(got.claim, "merge");
    // Its State file, and the merge that closed the issue.
    const workspace = new GitWorkspace({
      root: host.clone,
      host: new NodeHost({ env: host.env }),
      token: t.token,
      env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    });
    await workspace.writeState(1, () => ({
      ticket: 1,
      branch: "agent/1-add-a-formatprice-helper",
      state: "implemented",
      fixUsed: false,
      pullRequest: null,
      title: null,
      runId: "2026-01-01T00-00-00-000",
      version: "0.1.0",
      updatedAt: new Date().toISOString(),
    }));
    await world.adminOctokit.rest.issues.update({ owner: t.owner, repo: t.name, issue_number: 1, state: "closed" });
    let views = await viewTickets(world, t);
    assert.equal(checkLeases(t, views).length, 1, "the set-up leaves one lease claiming");

    const run = startRun(host.clone, host.env, ["--repo", t.full, "--api-url", world.sandbox.apiUrl]);
    const { code } = await run.exited;
    assert.equal(code, 0, run.stderr());
    views = await viewTickets(world, t);
    assert.deepEqual(checkLeases(t, views), [], "a lease still claims on the closed issue");
    assert.ok(!views[0]!.labels.includes("in-progress"), `in-progress is still on: ${views[0]!.labels.join(", ")}`);
    assert.deepEqual(await checkStateFiles(t, views), []);
    assert.ok(!(await gitOk(t.gitDir, ["cat-file", "-e", `${stateRecordRef(1)}:ticket-1.json`])), "the State file is still there");
    record("chaos.closed-with-claim", {
      what: "a closed issue's leftover claim (killed after the merge) is finished by the next sweep",
      test: "test/reliability/quick/closed-with-claim.test.ts",
      trials: 1,
      losses: 0,
    });
  });
});
