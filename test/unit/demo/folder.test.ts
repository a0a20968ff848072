import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRefusal } from "../../../src/core/errors";
import { defaultDemoDir, demoCommandLine, demoPaths, newDemoState, readDemoState, wipeDemoFolder, writeDemoState } from "../../../src/demo/folder";

describe("demo folder", () => {
  let tmp: string;
  beforeEach(() => (tmp = mkdtempSync(join(tmpdir(), "tr-demo-folder-"))));
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it("names the command the person used: npm run demo, or ticket-runner demo", () => {
    assert.equal(demoCommandLine(["--fresh"], { npm_lifecycle_event: "demo" }), "npm run demo -- --fresh");
    assert.equal(demoCommandLine([], { npm_lifecycle_event: "demo" }), "npm run demo");
    assert.equal(demoCommandLine(["--headless"], {}), "ticket-runner demo --headless");
  });

  it("defaults to ~/.ticket-runner/demo, or $TICKET_RUNNER_DEMO_DIR", () => {
    assert.match(defaultDemoDir({}), /[/\\]\.ticket-runner[/\\]demo$/);
    assert.equal(defaultDemoDir({ TICKET_RUNNER_DEMO_DIR: join(tmp, "x") }), join(tmp, "x"));
  });

  it("a new or empty folder has no record; a written one reads back", () => {
    const paths = demoPaths(join(tmp, "new"));
    assert.equal(readDemoState(paths), null);
    mkdirSync(paths.root);
    assert.equal(readDemoState(paths), null);
    const state = { ...newDemoState(new Date("2026-11-30T00:00:00Z")), sandboxPort: 40513, children: [{ what: "sandbox", pid: 42, startTime: "boot:1", group: true }] };
    writeDemoState(paths, state);
    assert.deepEqual(readDemoState(paths), state);
  });

  it("refuses a folder that is not the demo's, and a record it cannot read, naming the fix", () => {
    const foreign = demoPaths(join(tmp, "foreign"));
    mkdirSync(foreign.root);
    writeFileSync(join(foreign.root, "notes.txt"), "mine");
    assert.throws(() => readDemoState(foreign), (e: unknown) => isRefusal(e) && e.reason === "bad-input" && /not a Ticket Runner demo folder/.test(e.message) && /--data/.test(e.message));

    const broken = demoPaths(join(tmp, "broken"));
    mkdirSync(broken.root);
    writeFileSync(broken.stateFile, "{ not json");
    assert.throws(() => readDemoState(broken), (e: unknown) => isRefusal(e) && /not valid JSON/.test(e.message) && /--fresh/.test(e.message));

    writeFileSync(broken.stateFile, JSON.stringify({ kind: "something-else" }));
    assert.throws(() => readDemoState(broken), (e: unknown) => isRefusal(e) && /not a demo record/.test(e.message));
  });

  it("--fresh removes a demo folder, an empty one, and nothing else", () => {
    const demo = demoPaths(join(tmp, "demo"));
    writeDemoState(demo, newDemoState(new Date()));
    mkdirSync(join(demo.root, "shop"));
    wipeDemoFolder(demo);
    assert.ok(!existsSync(demo.root));

    const empty = demoPaths(join(tmp, "empty"));
    mkdirSync(empty.root);
    wipeDemoFolder(empty);
    assert.ok(!existsSync(empty.root));

    const home = demoPaths(join(tmp, "home"));
    mkdirSync(home.root);
    writeFileSync(join(home.root, ".bashrc"), "");
    assert.throws(() => wipeDemoFolder(home), (e: unknown) => isRefusal(e) && /has no demo\.json/.test(e.message));
    assert.ok(existsSync(join(home.root, ".bashrc")));
  });
});
