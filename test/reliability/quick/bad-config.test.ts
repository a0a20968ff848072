/**
 * Bad input, row "a config with unknown keys or wrong types": ticket-runner.json in a real git
 * checkout, read by `ticket-runner run` through the CLI's own front door (main() with a real CliIo)
 * and by both config readers (loadConfig, and loadConfigOrDefaults for what works without the file). Expected outcome for each:
 * exit 2, one message naming the file, the key (or path) at fault, and how to fix it; never a
 * default silently used in place of a typo, never a stack trace.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/cli/main";
import { loadConfigOrDefaults as readConfig } from "../../../src/app/config-load";
import { isRefusal } from "../../../src/core/errors";
import { loadConfig } from "../../../src/app/config-load";
import { git } from "../../support/git-fixtures";
import { record } from "../support/figures";

const TEST = "test/reliability/quick/bad-config.test.ts";

/** Each bad config, with the key (or path) the refusal must name. */
export const BAD_CONFIGS: { name: string; text: string; names: RegExp }[] = [
  { name: "typo at the top", text: '{ "lane": 2 }', names: /lane/ },
  { name: "typo inside agent", text: '{ "agent": { "permision": "plan" } }', names: /permision/ },
  { name: "typo inside lease", text: '{ "lease": { "ttl": 5 } }', names: /ttl/ },
  { name: "lanes as a string", text: '{ "lanes": "2" }', names: /lanes/ },
  { name: "lanes zero", text: '{ "lanes": 0 }', names: /lanes/ },
  { name: "lanes fractional", text: '{ "lanes": 1.5 }', names: /lanes/ },
  { name: "lanes too many", text: '{ "lanes": 17 }', names: /lanes/ },
  { name: "checks as a shell string", text: '{ "checks": "npm test && rm -rf /" }', names: /checks/ },
  { name: "an empty check", text: '{ "checks": [[]] }', names: /checks\.0/ },
  { name: "unknown agent", text: '{ "agent": { "kind": "gpt" } }', names: /agent\.kind/ },
  { name: "permission mode from nowhere", text: '{ "agent": { "permissionMode": "yolo" } }', names: /agent\.permissionMode/ },
  { name: "token pass as a string", text: '{ "agent": { "passGitHubToken": "yes" } }', names: /agent\.passGitHubToken/ },
  { name: "unknown lock scope", text: '{ "lockScope": "global" }', names: /lockScope/ },
  { name: "negative TTL", text: '{ "lease": { "ttlMinutes": -1 } }', names: /lease\.ttlMinutes/ },
  { name: "labels not an object", text: '{ "labels": "ready" }', names: /labels/ },
  { name: "empty label name", text: '{ "labels": { "ready": "" } }', names: /labels\.ready/ },
  { name: "__proto__ key", text: '{ "__proto__": { "lanes": 9 } }', names: /__proto__/ },
  { name: "constructor key", text: '{ "constructor": { "prototype": {} } }', names: /constructor/ },
  { name: "null", text: "null", names: /object/i },
  { name: "an array", text: "[]", names: /object/i },
  { name: "not JSON", text: "{ lanes: 2, }", names: /not valid JSON/ },
  { name: "empty file", text: "", names: /not valid JSON/ },
  { name: "trailing garbage", text: '{ "lanes": 2 } }', names: /not valid JSON/ },
  { name: "NaN", text: '{ "lanes": NaN }', names: /not valid JSON/ },
];

describe("reliability: a ticket-runner.json with unknown keys or wrong types", function () {
  this.timeout(60_000);
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tr-rel-config-"));
    await git(dir, ["init", "-q", "--initial-branch=main"]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("each one is refused by `ticket-runner run` (exit 2) and by both config readers, naming the file and the key", async () => {
    const file = join(dir, "ticket-runner.json");
    for (const bad of BAD_CONFIGS) {
      writeFileSync(file, bad.text);
      const err: string[] = [];
      // No token on purpose: the config is read, and refused, before anything else is needed.
      const code = await main(["run", "--repo", "acme/widgets"], { out: () => undefined, err: (l) => err.push(l), env: { PATH: process.env.PATH }, cwd: dir });
      const said = err.join("\n");
      assert.equal(code, 2, `${bad.name}: exit ${code}: ${said}`);
      assert.ok(said.includes(file), `${bad.name}: the file is not named: ${said}`);
      assert.match(said, bad.names, `${bad.name}: ${said}`);
      assert.match(said, /[Ff]ix the/, `${bad.name}: no way out: ${said}`);
      assert.ok(!/\n\s+at /.test(said), `${bad.name}: a stack trace`);
      for (const read of [() => loadConfig(dir), () => readConfig(dir)]) {
        assert.throws(
          read,
          (e: unknown) => isRefusal(e) && e.reason === "bad-config" && e.message.includes(file) && bad.names.test(e.message),
          `${bad.name}: a reader let it through or said it unclearly`,
        );
      }
    }
    record("input.config", { what: "bad config refused with the key named (exit 2)", test: TEST, inputs: BAD_CONFIGS.length, losses: 0 });
  });

  it("a good config reads; a missing one is `ticket-runner init`; a BOM from a Windows editor is read or clearly refused, never a crash", () => {
    const file = join(dir, "ticket-runner.json");
    writeFileSync(file, '{ "lanes": 2, "agent": { "kind": "demo" } }');
    assert.equal(loadConfig(dir).lanes, 2);
    assert.equal(readConfig(dir).lanes, 2);
    rmSync(file);
    assert.throws(
      () => loadConfig(dir),
      (e: unknown) => isRefusal(e) && e.reason === "not-a-target" && e.details.next === "ticket-runner init",
    );
    writeFileSync(file, '\uFEFF{ "lanes": 2 }');
    for (const read of [() => loadConfig(dir), () => readConfig(dir)]) {
      try {
        assert.equal(read().lanes, 2);
      } catch (e) {
        assert.ok(isRefusal(e) && e.reason === "bad-config", String(e));
      }
    }
  });
});
