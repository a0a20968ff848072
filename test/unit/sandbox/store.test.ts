// Unit tests for the sandbox store: atomic persistence and the lagged read view.
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Store } from "../../../src/sandbox/store";

describe("sandbox store", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-store-"));
  });
  afterEach(async () => fsp.rm(dir, { recursive: true, force: true }));

  it("many concurrent saves leave one valid state file and no temp files, holding the last state", async () => {
    const store = new Store(dir);
    const saves: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      store.nextId();
      saves.push(store.changed());
    }
    await Promise.all(saves);
    const files = await fsp.readdir(dir);
    assert.deepEqual(files, ["state.json"]);
    const again = new Store(dir);
    await again.load();
    assert.equal(again.state.nextId, store.state.nextId);
  });

  it("saves asked for while one is written share the next write, and each resolves with its own change on disk", async () => {
    const store = new Store(dir);
    const file = path.join(dir, "state.json");
    store.nextId();
    const first = store.changed();
    // The first write has begun (its state serialised) once its turn's callback ran.
    await new Promise((resolve) => setImmediate(resolve));
    const later: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      const mine = store.nextId();
      later.push(
        store.changed().then(async () => {
          const saved = JSON.parse(await fsp.readFile(file, "utf8")) as { nextId: number };
          assert.ok(saved.nextId >= mine, `change ${mine} not on disk when its save resolved (${saved.nextId})`);
        }),
      );
    }
    await Promise.all([first, ...later]);
    assert.ok(store.written <= 2, `${store.written} writes for two turns of saves`);
    const again = new Store(dir);
    await again.load();
    assert.equal(again.state.nextId, store.state.nextId);
  });

  it("each write holds the state's bytes exactly, non-ASCII text included, as the state grows and shrinks", async () => {
    const store = new Store(dir);
    const file = path.join(dir, "state.json");
    // "—" is three bytes of UTF-8 for one UTF-16 unit: the most the kept buffer must hold a unit.
    for (const login of ["a", "—".repeat(30000), "b", "ü·—".repeat(5000), "😀".repeat(20000), "c"]) {
      store.state.users = { x: { id: 1, login, token: "t", createdAt: "" } };
      await store.changed();
      assert.equal(await fsp.readFile(file, "utf8"), JSON.stringify(store.state));
    }
  });

  it("a state file's folder removed under the store is made again by the next save", async () => {
    const store = new Store(path.join(dir, "data"));
    await store.changed();
    await fsp.rm(path.join(dir, "data"), { recursive: true });
    store.nextId();
    await store.changed();
    const again = new Store(path.join(dir, "data"));
    await again.load();
    assert.equal(again.state.nextId, store.state.nextId);
  });

  it("with read lag, view() serves the state from before recent writes; live state is current", async () => {
    const store = new Store(null);
    store.setReadLag(60_000);
    store.state.users.x = { id: 1, login: "x", token: "t", createdAt: "" };
    await store.changed();
    assert.equal(store.view().users.x, undefined);
    assert.ok(store.state.users.x);
    store.setReadLag(0);
    assert.ok(store.view().users.x);
  });
});
