/**
 * Found by the dead-Host run: two Hosts that take the same Frontier ticket at the same moment both
 * read "no State file", both write a fresh one (the second over the first), and the loser of the
 * claim race then removed "its" State file, which by then was the only one, the winner's. The
 * winner worked on with no State: killed, its ticket was stranded where no sweep finds it.
 *
 * Here the two takes are started at the same instant, with the real adapters (composeRun's:
 * Octokit tracker, git Workspace on two clones, the claim protocol) against the sandbox, a few
 * rounds. Expected, every round: exactly one Host takes the ticket, and its State file is there.
 */
import { strict as assert } from "node:assert";
import { composeRun } from "../../../src/app/compose-run";
import { loadConfig } from "../../../src/app/config-load";
import { stateRecordRef } from "../../../src/core/schemas/state-file";
import { MergeTrain } from "../../../src/core/run/merge-train";
import { RunEvents } from "../../../src/core/run/run-events";
import type { RunEnv } from "../../../src/core/run/context";
import { takeTicket } from "../../../src/core/run/take";
import { DEMO_ISSUES } from "../../../src/sandbox/seeds/demo-project";
import { ChaosWorld, gitOk, type ChaosTarget, type HostSpec } from "../chaos/world";
import { record } from "../support/figures";

const ROUNDS = 4;
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function envFor(world: ChaosWorld, t: ChaosTarget, h: HostSpec, runId: string): Promise<RunEnv> {
  const config = loadConfig(h.clone);
  const { deps } = composeRun(
    { config, apiUrl: world.sandbox.apiUrl, token: t.token, repo: { owner: t.owner, repo: t.name }, cwd: h.clone, runRoot: h.runRoot, log: quiet, env: h.env },
    { runId },
  );
  return {
    deps,
    config,
    runId,
    version: "test",
    viewer: await deps.tracker.viewer(),
    base: "main",
    hostName: h.name,
    events: new RunEvents(() => undefined),
    train: new MergeTrain(),
    mergeMethod: config.merge.method,
    flags: { stopping: false, stoppedAt: null, stoppedHolding: [], rateLimited: false, limitResetsAt: null, unavailable: null, killed: false },
    held: new Map(),
  };
}

describe("reliability: two Hosts taking one ticket at once keep its State file", function () {
  this.timeout(180_000);
  let world: ChaosWorld;

  before(async () => {
    world = await ChaosWorld.start();
  });
  after(async () => world?.stop());

  it(`${ROUNDS} rounds of simultaneous takes: one winner, and the winner's State file is there`, async () => {
    const missing: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const t = await world.target({
        name: `state-race-${round}`,
        issues: [DEMO_ISSUES[0]!],
        config: { lanes: 1, lockScope: "host", lease: { settleMs: 300 } },
      });
      const [a, b] = [await world.host(t, "host-a"), await world.host(t, "host-b")];
      const envs = [await envFor(world, t, a, `run-a-${round}`), await envFor(world, t, b, `run-b-${round}`)];
      const issue = (await envs[0]!.deps.tracker.getIssue(1))!;
      const taken = await Promise.all(envs.map((env) => takeTicket(env, { kind: "frontier", issue }, 0)));
      const winners = taken.filter((x) => x.taken).length;
      assert.equal(winners, 1, `round ${round}: ${winners} Hosts took the ticket`);
      if (!(await gitOk(t.gitDir, ["cat-file", "-e", `${stateRecordRef(1)}:ticket-1.json`])))
        missing.push(`round ${round}: the winner holds #1 with no State file`);
    }
    record("race.state-claim", {
      what: "two Hosts taking one ticket at once: one winner, and it keeps a State file",
      test: "test/reliability/quick/state-claim-race.test.ts",
      trials: ROUNDS,
      losses: missing.length,
    });
    assert.deepEqual(missing, []);
  });
});
