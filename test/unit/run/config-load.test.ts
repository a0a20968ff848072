import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, parseConfig } from "../../../src/app/config-load";
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
    assert.match(refusal(() => parseConfig({ lease: { heartbeatMinutes: 50, ttlMinutes: 45 } }, "f")).message, /"lease\.heartbeatMinutes": must be shorter than lease\.ttlMinutes/);
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
});
