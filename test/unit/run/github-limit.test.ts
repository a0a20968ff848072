/**
 * GitHub's rate limit met while the Landing waits for CI (ADR 0240): a limit that resets before the
 * CI timeout is waited out and the ticket merges; one past it releases the ticket, naming the
 * reset, and the Run takes nothing more.
 */
import { strict as assert } from "node:assert";
import { GitHubRateLimit } from "../../../src/core/errors";
import { World } from "./world";

describe("Run: GitHub's rate limit during the CI wait", () => {
  let w: World;
  beforeEach(() => (w = new World({ config: { ci: { timeoutMinutes: 60 } } })));
  afterEach(() => w.dispose());

  function limitOnce(resetInMinutes: number): () => number {
    let thrown = 0;
    w.ci = () => {
      if (thrown === 0) {
        thrown += 1;
        throw new GitHubRateLimit("primary", "rest", new Date(w.clock.now().getTime() + resetInMinutes * 60_000));
      }
      return { state: "success", details: ["test: success"] };
    };
    return () => thrown;
  }

  it("waits out a limit that resets before the CI timeout, then merges", async () => {
    const n = w.ticket("A");
    const thrown = limitOnce(10);
    const summary = await w.run().start();
    assert.equal(thrown(), 1);
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [[n, "merged"]],
      summary.lines.join("\n"),
    );
    assert.ok(w.clock.advancedMs >= 10 * 60_000, `waited for the reset: ${w.clock.advancedMs} ms`);
  });

  it("releases the ticket when the limit resets after the CI timeout, naming the reset", async () => {
    const a = w.ticket("A");
    w.ticket("B");
    limitOnce(90);
    const summary = await w.run().start();
    assert.deepEqual(
      summary.rows.map((r) => [r.ticket, r.ending]),
      [[a, "released"]],
      summary.lines.join("\n"),
    );
    assert.match(summary.rows[0]!.line, /^at ci: GitHub's REST rate limit for this token is spent; it resets 2026-09-17 10:3\d UTC$/);
    assert.match(summary.lines.at(-1)!, /^Rate limited: the limit resets 2026-09-17 10:3\d UTC/);
    assert.deepEqual(w.issue(a).labels, ["ready-for-agent"], "released");
  });
});
