import { strict as assert } from "node:assert";
import { driverNames, overrideEnv } from "../../../src/adapters/git/driver-overrides";

describe("workspace: filters and merge drivers switched off (ADR 0223)", () => {
  it("reads every filter and merge name, dots and `=` included, and whether the config includes files", () => {
    const listing = [
      "filter.lfs.smudge\ngit-lfs smudge %f",
      "filter.a=b.c.process\nevil",
      "merge.ours.driver\ntrue",
      "Filter.Mixed.clean\nx",
      "include.path\n/tmp/x",
      "",
    ].join("\0");
    const names = driverNames(listing);
    assert.deepEqual(names.filters.sort(), ["Mixed", "a=b.c", "lfs"].sort());
    assert.deepEqual(names.merges, ["ours"]);
    assert.equal(names.includes, true);
    assert.equal(driverNames("filter.lfs.smudge\nx\0").includes, false);
  });

  it("each name: filters empty and not required, merge drivers false; after the entries the call already has", () => {
    assert.deepEqual(overrideEnv({ filters: [], merges: [] }), {});
    const env = overrideEnv({ filters: ["a=b"], merges: ["m"] }, 1);
    assert.equal(env.GIT_CONFIG_COUNT, "7");
    assert.equal(env.GIT_CONFIG_KEY_0, undefined, "the call's own entry 0 is left alone");
    const pairs = Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [env[`GIT_CONFIG_KEY_${i}`], env[`GIT_CONFIG_VALUE_${i}`]]));
    assert.deepEqual(pairs, {
      "filter.a=b.clean": "",
      "filter.a=b.smudge": "",
      "filter.a=b.process": "",
      "filter.a=b.required": "false",
      "merge.m.driver": "false",
      "merge.m.recursive": "binary",
    });
  });
});
