/**
 * The quick variant of the chaos run, inside `npm test`: two kill-anywhere trials (fixed seeds, so a
 * failure can be replayed with `npm run test:chaos -- --trials 1 --seed <seed> --verbose`), the
 * fault run, the dead Host and the secrets canary, each on a fresh sandbox with the real
 * `node dist/cli.js run` (built by `npm run test:reliability`). The long run is
 * `npm run test:chaos -- --trials 100`.
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { killTrial } from "../chaos/kill-trial";
import { CLI } from "../chaos/run-process";
import { extraScenarios } from "../chaos/scenarios";
import { ChaosWorld } from "../chaos/world";
import { record } from "../support/figures";

const SEEDS = [7, 21];

describe("reliability: chaos (quick variant)", function () {
  this.timeout(15 * 60_000);

  before(function () {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm run test:reliability does)`);
  });

  it(`kill anywhere: ${SEEDS.length} trials of a 2-Lane Run of 6 tickets on 2 Hosts, SIGKILLed at random until all end`, async () => {
    const world = await ChaosWorld.start();
    const violations: string[] = [];
    let kills = 0;
    try {
      for (const seed of SEEDS) {
        const r = await killTrial(world, { seed, killRate: 0.5, maxRuns: 12 });
        kills += r.kills;
        process.stdout.write(
          `      seed ${seed}: ${r.runs} Runs, ${r.kills} kills (${r.killsOnOtherHost} on host-b), ${r.pushed} pushed commits, ${r.violations.length} violations\n`,
        );
        violations.push(...r.violations.map((v) => `seed ${seed}: ${v}`));
      }
    } finally {
      await world.stop();
    }
    record("chaos.kill-anywhere.quick", {
      what: "kill anywhere, quick variant (npm test)",
      test: "test/reliability/quick/chaos.test.ts",
      trials: SEEDS.length,
      kills,
      losses: violations.length,
    });
    assert.deepEqual(violations, []);
  });

  for (const name of ["faults", "dead-host", "canary"]) {
    it(`${name}`, async () => {
      const world = await ChaosWorld.start();
      try {
        const r = await extraScenarios[name]!(world, {});
        process.stdout.write(`      ${r.summary}\n`);
        record(r.figureId, r.figure);
        assert.deepEqual(r.violations, []);
      } finally {
        await world.stop();
      }
    });
  }
});
