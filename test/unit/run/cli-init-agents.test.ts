import { strict as assert } from "node:assert";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { agentsOnPath } from "../../../src/app/agents-on-path";
import { initTarget } from "../../../src/app/init-target";
import { loadConfig } from "../../../src/app/config-load";

describe("ticket-runner init: which agent", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "tr-init-agents-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function bin(name: string, folder: string, executable = true): void {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, name), "#!/bin/sh\n");
    chmodSync(join(dir, folder, name), executable ? 0o755 : 0o644);
  }

  it("finds the agent CLIs on the PATH, executable ones only, Claude Code first", () => {
    bin("gemini", "a");
    bin("codex", "b");
    bin("claude", "c", false);
    assert.deepEqual(agentsOnPath({ PATH: [join(dir, "a"), join(dir, "b"), join(dir, "c")].join(delimiter) }), ["codex", "gemini"]);
    bin("claude", "d");
    assert.deepEqual(agentsOnPath({ PATH: [join(dir, "a"), join(dir, "d")].join(delimiter) }), ["claude", "gemini"]);
    assert.deepEqual(agentsOnPath({}), []);
  });

  it("names the first agent found in a new config, and says so; with none found, Claude Code and how to install it", async () => {
    const target = join(dir, "t1");
    mkdirSync(target);
    const report = await initTarget(target, null, ["codex", "gemini"]);
    assert.equal(loadConfig(target).agent.kind, "codex");
    assert.match(report.lines.join("\n"), /Agents on the PATH: codex, gemini; agent.kind is "codex"/);

    const bare = join(dir, "t2");
    mkdirSync(bare);
    const none = await initTarget(bare, null, []);
    assert.equal(JSON.parse(readFileSync(join(bare, "ticket-runner.json"), "utf8")).agent.kind, "claude");
    assert.match(none.lines.join("\n"), /none of claude, codex, gemini is on the PATH.*npm install -g @anthropic-ai\/claude-code/);
  });
});
