import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { knownKeys, loadConfig, loadConfigOrDefaults, parseConfig } from "../../../src/app/config-load";
import { configSchema } from "../../../src/core/schemas/config";
import { Refusal } from "../../../src/core/errors";

describe("config: ticket-runner.json", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "tr-config-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const refusal = (fn: () => unknown): Refusal => {
    try {
      fn();
    } catch (e) {
      if (e instanceof Refusal) return e;
      throw e;
    }
    assert.fail("expected a refusal");
  };

  it("fills every default from an empty object", () => {
    const c = parseConfig({}, "x");
    assert.equal(c.lanes, 1);
    assert.equal(c.merge.method, "squash");
    assert.equal(c.ci.required, true);
    assert.deepEqual(c.labels, { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human", hostLabels: false });
  });

  it("names an unknown key, suggests the near one, and lists what is allowed", () => {
    const r = refusal(() => parseConfig({ lanez: 2 }, "/t/ticket-runner.json"));
    assert.equal(r.reason, "bad-config");
    assert.match(r.message, /unknown key "lanez" \(did you mean "lanes"\?\)/);
    assert.match(r.message, /allowed at the top level are \$schema, labels, base, lanes/);
    const nested = refusal(() => parseConfig({ ci: { requird: false } }, "f"));
    assert.match(nested.message, /unknown key "ci.requird" \(did you mean "ci.required"\?\)/);
  });

  it("names a bad value's key", () => {
    assert.match(refusal(() => parseConfig({ lanes: 0 }, "f")).message, /"lanes": Number must be greater than or equal to 1/);
    assert.match(refusal(() => parseConfig({ checks: [["npm", ""]] }, "f")).message, /"checks\.0\.1"/);
    assert.match(
      refusal(() => parseConfig({ lease: { heartbeatMinutes: 50, ttlMinutes: 45 } }, "f")).message,
      /"lease\.heartbeatMinutes": must be shorter than lease\.ttlMinutes/,
    );
    assert.match(refusal(() => parseConfig({ agent: { kind: "command" } }, "f")).message, /"agent\.command": is required/);
  });

  it("a Target without the file has not been set up: the next command is init", () => {
    const r = refusal(() => loadConfig(dir));
    assert.equal(r.reason, "not-a-target");
    assert.equal(r.details.next, "ticket-runner init");
  });

  it("broken JSON is a clear refusal naming the file", () => {
    writeFileSync(join(dir, "ticket-runner.json"), "{ lanes: 2 }");
    const r = refusal(() => loadConfig(dir));
    assert.match(r.message, /ticket-runner\.json is not valid JSON/);
  });

  it("knows every key the schema has, at every level (read from the zod schema, not a second list)", () => {
    for (const key of Object.keys(configSchema.parse({}))) assert.ok(knownKeys("").includes(key), key);
    for (const key of ["checkEnv", "lockScope", "checks", "merge"]) assert.ok(knownKeys("").includes(key), key);
    assert.ok(knownKeys("agent").includes("args"), "agent.args");
    assert.ok(knownKeys("labels").includes("hostLabels"));
    assert.deepEqual(knownKeys("merge"), ["method"]);
    assert.deepEqual(knownKeys("lanes"), []);
    const r = refusal(() => parseConfig({ agent: { argz: [] } }, "f"));
    assert.match(r.message, /unknown key "agent.argz" \(did you mean "agent.args"\?\)/);
  });

  it("what works without the file reads the defaults when there is none, and refuses a bad one as loadConfig does", () => {
    assert.deepEqual(loadConfigOrDefaults(dir), configSchema.parse({}));
    assert.deepEqual(loadConfigOrDefaults(null), configSchema.parse({}));
    writeFileSync(join(dir, "ticket-runner.json"), '{ "labels": { "ready": "go" } }');
    assert.equal(loadConfigOrDefaults(dir).labels.ready, "go");
    for (const bad of ["{ lanes: 2 }", '{ "labels": { "redy": "go" } }', '{ "lanes": 0 }']) {
      writeFileSync(join(dir, "ticket-runner.json"), bad);
      const strict = refusal(() => loadConfig(dir));
      const lenient = refusal(() => loadConfigOrDefaults(dir));
      assert.equal(lenient.reason, "bad-config", bad);
      assert.equal(lenient.message, strict.message, bad);
    }
  });
});
