import { strict as assert } from "node:assert";
import { ProgressComment } from "../../../src/core/run/progress-comment";
import type { Log } from "../../../src/ports/log";
import type { Tracker, TrackerComment } from "../../../src/ports/tracker";

const quiet: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A tracker whose comment writes wait until the test lets each one go, and that records them in order. */
function slowTracker(): { tracker: Tracker; writes: string[]; release(): void } {
  const writes: string[] = [];
  const waiting: (() => void)[] = [];
  let nextId = 100;
  const write = (kind: string, body: string, id?: number): Promise<TrackerComment> =>
    new Promise((resolve) =>
      waiting.push(() => {
        writes.push(kind);
        resolve({ id: id ?? nextId++, author: "bot", body } as unknown as TrackerComment);
      }),
    );
  const tracker = {
    createComment: (_n: number, body: string) => write("create", body),
    updateComment: (id: number, body: string) => write(`update ${id}`, body, id),
  } as unknown as Tracker;
  return { tracker, writes, release: () => waiting.shift()?.() };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("the progress comment", () => {
  it("a long Stage's write goes beside its start, and a write asked for meanwhile edits the comment it creates (ADR 0484)", async () => {
    const { tracker, writes, release } = slowTracker();
    const progress = new ProgressComment(tracker, quiet, 7, "run-1", "host", null, () => 0);
    await progress.add({ stage: "checks", outcome: "ok", turns: null, durationMs: 10 });
    // Not awaited, as startStage does not: the agent starts while the comment is created.
    const started = progress.stageStarting("verify");
    await settle();
    await progress.add({ stage: "verify", outcome: "ok", turns: 1, durationMs: 10 });
    const ending = progress.flush();
    await settle();
    assert.deepEqual(writes, [], "nothing is written until the tracker answers");
    release();
    await started;
    await settle();
    release();
    await ending;
    assert.deepEqual(writes, ["create", "update 100"], "one comment, created once and then edited, not two comments");
    assert.equal(progress.id, 100);
  });

  it("a write that fails is logged and does not stop the next one", async () => {
    let calls = 0;
    const warned: string[] = [];
    const tracker = {
      createComment: (_n: number, body: string) => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error("offline")) : Promise.resolve({ id: 5, author: "bot", body } as unknown as TrackerComment);
      },
      updateComment: () => Promise.reject(new Error("unexpected")),
    } as unknown as Tracker;
    const log: Log = { ...quiet, warn: (m) => warned.push(m) };
    const progress = new ProgressComment(tracker, log, 7, "run-1", "host", null, () => 0);
    await progress.add({ stage: "checks", outcome: "ok", turns: null, durationMs: 10 });
    await progress.stageStarting("verify");
    assert.equal(warned.length, 1);
    await progress.flush();
    assert.equal(calls, 2, "the rows still waiting are written by the next flush");
    assert.equal(progress.id, 5);
  });
});
