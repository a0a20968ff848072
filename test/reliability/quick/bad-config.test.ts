/**
 * Bad input, row "a config with unknown keys or wrong types": ticket-runner.json in a real git
 * checkout, read by the CLI's own front door (main() with a real CliIo). Expected outcome for each:
 * exit 2, one message naming the file, the key (or path) at fault, and "Fix the file and run again";
 * never a default silently used in place of a typo, never a stack trace.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/cli/main";
import { readConfig } from "../../../src/cli/target-options";
import { isRefusal } from "../../../src/core/errors";
import { configSchema } from "../../../src/core/schemas/config";
import { git } from "../../support/git-fixtures";
import { record } from "../support/figures";

const TEST = "test/reliability/quick/bad-config.test.ts";

/** Each bad config, with what the message must name. */
export const BAD_CONFIGS: { name: string; text: string; names: RegExp }[] = [
  { name: "typo at the top", text: '{ "lane": 2 }', names: /Unrecognized key\(s\) in object: 'lane'/ },
  { name: "typo inside agent", text: '{ "agent": { "permision": "plan" } }', names: /agent: Unrecognized key\(s\) in object: 'permision'/ },
  { name: "typo inside lease", text: '{ "lease": { "ttl": 5 } }', names: /lease: Unrecognized key/ },
  { name: "lanes as a string", text: '{ "lanes": "2" }', names: /lanes: Expected number, received string/ },
  { name: "lanes zero", text: '{ "lanes": 0 }', names: /lanes: Number must be greater than or equal to 1/ },
  { name: "lanes fractional", text: '{ "lanes": 1.5 }', names: /lanes: Expected integer/ },
  { name: "lanes too many", text: '{ "lanes": 17 }', names: /lanes: Number must be less than or equal to 16/ },
  { name: "checks as a shell string", text: '{ "checks": "npm test && rm -rf /" }', names: /checks: Expected array/ },
  { name: "an empty check", text: '{ "checks": [[]] }', names: /checks\.0: Array must contain at least 1/ },
  { name: "unknown agent", text: '{ "agent": { "kind": "gpt" } }', names: /agent\.kind: Invalid enum value/ },
  { name: "permission mode from nowhere", text: '{ "agent": { "permissionMode": "yolo" } }', names: /agent\.permissionMode: Invalid enum value/ },
  { name: "token pass as a string", text: '{ "agent": { "passGitHubToken": "yes" } }', names: /agent\.passGitHubToken: Expected boolean/ },
  { name: "unknown lock scope", text: '{ "lockScope": "global" }', names: /lockScope: Invalid enum value/ },
  { name: "negative TTL", text: '{ "lease": { "ttlMinutes": -1 } }', names: /lease\.ttlMinutes: Number must be greater than 0/ },
  { name: "labels not an object", text: '{ "labels": "ready" }', names: /labels: Expected object/ },
  { name: "empty label name", text: '{ "labels": { "ready": "" } }', names: /labels\.ready: String must contain at least 1/ },
  { name: "__proto__ key", text: '{ "__proto__": { "lanes": 9 } }', names: /Unrecognized key\(s\) in object: '__proto__'/ },
  { name: "constructor key", text: '{ "constructor": { "prototype": {} } }', names: /Unrecognized key\(s\) in object: 'constructor'/ },
  { name: "null", text: "null", names: /\(root\): Expected object, received null/ },
  { name: "an array", text: "[]", names: /\(root\): Expected object, received array/ },
  { name: "not JSON", text: "{ lanes: 2, }", names: /is not valid JSON/ },
  { name: "empty file", text: "", names: /is not valid JSON/ },
  { name: "trailing garbage", text: '{ "lanes": 2 } }', names: /is not valid JSON/ },
  { name: "NaN", text: '{ "lanes": NaN }', names: /is not valid JSON/ },
];

describe("reliability: a ticket-runner.json with unknown keys or wrong types", function () {
  this.timeout(60_000);
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tr-rel-config-"));
    await git(dir, ["init", "-q", "--initial-branch=main"]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("each one is refused by the CLI with exit 2, naming the file and the key", async () => {
    for (const bad of BAD_CONFIGS) {
      writeFileSync(join(dir, "ticket-runner.json"), bad.text);
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(["board", "--repo", "acme/widgets"], { out: (l) => out.push(l), err: (l) => err.push(l), env: { PATH: process.env.PATH }, cwd: dir });
      const said = err.join("\n");
      assert.equal(code, 2, `${bad.name}: exit ${code}: ${said}`);
      assert.ok(said.includes(join(dir, "ticket-runner.json")), `${bad.name}: the file is not named: ${said}`);
      assert.match(said, bad.names, `${bad.name}: ${said}`);
      assert.match(said, /Fix the file and run again/);
      assert.ok(!/\n\s+at /.test(said), `${bad.name}: a stack trace`);
    }
    record("input.config", { what: "bad config refused with the key named (exit 2)", test: TEST, inputs: BAD_CONFIGS.length, losses: 0 });
  });

  it("a good config and no config both read; a BOM from a Windows editor is a clear refusal, not a crash", () => {
    writeFileSync(join(dir, "ticket-runner.json"), '{ "lanes": 2, "agent": { "kind": "demo" } }');
    assert.equal(readConfig(dir).lanes, 2);
    rmSync(join(dir, "ticket-runner.json"));
    assert.deepEqual(readConfig(dir), configSchema.parse({}));
    writeFileSync(join(dir, "ticket-runner.json"), '\uFEFF{ "lanes": 2 }');
    try {
      assert.equal(readConfig(dir).lanes, 2);
    } catch (e) {
      assert.ok(isRefusal(e) && e.reason === "bad-config", String(e));
    }
  });
});
