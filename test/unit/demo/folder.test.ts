import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    const state = {
      ...newDemoState(new Date("2026-11-30T00:00:00Z")),
      sandboxPort: 40513,
      children: [{ what: "sandbox", pid: 42, startTime: "boot:1", group: true }],
    };
    writeDemoState(paths, state);
    assert.deepEqual(readDemoState(paths), state);
  });

  it("refuses a folder that is not the demo's, and a record it cannot read, naming the fix", () => {
    const foreign = demoPaths(join(tmp, "foreign"));
    mkdirSync(foreign.root);
    writeFileSync(join(foreign.root, "notes.txt"), "mine");
    assert.throws(
      () => readDemoState(foreign),
      (e: unknown) => isRefusal(e) && e.reason === "bad-input" && /not a Ticket Runner demo folder/.test(e.message) && /--data/.test(e.message),
    );

    const broken = demoPaths(join(tmp, "broken"));
    mkdirSync(broken.root);
    writeFileSync(broken.stateFile, "{ not json");
    assert.throws(
      () => readDemoState(broken),
      (e: unknown) => isRefusal(e) && /not valid JSON/.test(e.message) && /--fresh/.test(e.message),
    );

    writeFileSync(broken.stateFile, JSON.stringify({ kind: "something-else" }));
    assert.throws(
      () => readDemoState(broken),
      (e: unknown) => isRefusal(e) && /not a demo record/.test(e.message),
    );
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
    assert.throws(
      () => wipeDemoFolder(home),
      (e: unknown) => isRefusal(e) && /Nothing was deleted/.test(e.message),
    );
    assert.ok(existsSync(join(home.root, ".bashrc")));
  });

  it("--fresh never deletes a folder whose only sign is a file named demo.json", () => {
    // A project that happens to hold a demo.json: any content, even a record in the demo's own shape.
    const project = demoPaths(join(tmp, "project"));
    mkdirSync(join(project.root, "src"), { recursive: true });
    writeFileSync(join(project.root, "src", "main.ts"), "export {};\n");
    for (const content of ['{"title": "our demo"}', "not json", JSON.stringify({ kind: "ticket-runner-demo", createdAt: "2026-01-01T00:00:00Z" })]) {
      writeFileSync(project.stateFile, content);
      assert.throws(
        () => wipeDemoFolder(project),
        (e: unknown) =>
          isRefusal(e) &&
          e.reason === "bad-input" &&
          /Nothing was deleted\./.test(e.message) &&
          /--fresh --data <a new or empty folder>/.test(e.message) &&
          e.message.includes(project.marker),
      );
      assert.ok(existsSync(join(project.root, "src", "main.ts")), `kept with demo.json ${content}`);
    }

    // A marker naming another id than the record: not this demo's folder either.
    const copied = demoPaths(join(tmp, "copied"));
    writeDemoState(copied, newDemoState(new Date()));
    writeFileSync(copied.marker, `ticket-runner-demo ${"0".repeat(32)}\n`);
    assert.throws(
      () => wipeDemoFolder(copied),
      (e: unknown) => isRefusal(e) && /another folder id|not the marker's/.test(e.message),
    );
    assert.ok(existsSync(copied.stateFile));
  });

  it("the folder the demo made carries its random id in the marker and in demo.json, and --fresh removes it", () => {
    const a = demoPaths(join(tmp, "a"));
    const b = demoPaths(join(tmp, "b"));
    writeDemoState(a, newDemoState(new Date()));
    writeDemoState(b, newDemoState(new Date()));
    const idOf = (p: typeof a) => readDemoState(p)!.id!;
    assert.match(idOf(a), /^[0-9a-f]{32}$/);
    assert.notEqual(idOf(a), idOf(b));
    assert.equal(readFileSync(a.marker, "utf8"), `ticket-runner-demo ${idOf(a)}\n`);
    wipeDemoFolder(a);
    assert.ok(!existsSync(a.root));
  });
});
