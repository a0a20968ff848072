/**
 * The merge method a Run uses (ADR 0242): the configured one when the repository allows it, else the
 * first it allows in GitHub's order; none allowed is a refusal before the lock.
 */
import { strict as assert } from "node:assert";
import { isRefusal } from "../../../src/core/errors";
import { World } from "./world";

describe("Run: the merge method the repository allows", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("uses the configured method when the repository allows it", async () => {
    w.ticket("A");
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged"],
    );
    assert.deepEqual(w.gh.mergedWith, ["squash"]);
  });

  it("falls back to the first method the repository allows, and says so once", async () => {
    w.gh.mergeMethods = { merge: false, squash: false, rebase: true };
    w.ticket("A");
    w.ticket("B");
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged", "merged"],
      summary.lines.join("\n"),
    );
    assert.deepEqual(w.gh.mergedWith, ["rebase", "rebase"]);
    assert.equal(w.log.lines.filter((l) => l.includes('does not allow the "squash" merge method')).length, 1, w.log.lines.join("\n"));
  });

  it("tries the configured method when GitHub does not say", async () => {
    w.gh.mergeMethods = null;
    w.ticket("A");
    await w.run().start();
    assert.deepEqual(w.gh.mergedWith, ["squash"]);
  });

  it("refuses before the lock when the repository allows none", async () => {
    w.gh.mergeMethods = { merge: false, squash: false, rebase: false };
    w.ticket("A");
    const error = await w
      .run()
      .start()
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(isRefusal(error), String(error));
    assert.equal(error.reason, "bad-config");
    assert.match(
      error.message,
      /acme\/widgets allows no merge method .* An admin turns one on \(Settings > General > Pull Requests\), then `ticket-runner run`/,
    );
    assert.deepEqual(w.remote.lockHistory, [], "the lock was never taken");
  });
});
