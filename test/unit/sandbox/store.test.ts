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
