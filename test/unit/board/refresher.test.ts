import { strict as assert } from "node:assert";
import { BoardLoader } from "../../../src/core/board/load";
import { BoardRefresher } from "../../../src/core/board/refresher";
import { BoardSourceError } from "../../../src/core/board/source-error";
import type { Clock } from "../../../src/ports/clock";
import type { Log } from "../../../src/ports/log";
import { FakeBoardSource } from "../../fakes/fake-board-source";
import { HERE, NOW } from "./board-fixtures";

const silent: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const labels = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" };

function setup(): { source: FakeBoardSource; refresher: BoardRefresher; clock: { t: number } & Clock } {
  const clock = {
    t: NOW.getTime(),
    now() {
      return new Date(this.t);
    },
    sleep: async () => undefined,
  };
  const source = new FakeBoardSource();
  source.issues = [
    { number: 1, labels: ["ready-for-agent"] },
    { number: 2, labels: ["ready-for-agent"] },
  ];
  const loader = new BoardLoader({ source, readLocal: async () => [], host: HERE, labels, clock, log: silent });
  const refresher = new BoardRefresher({ load: () => loader.load(), poll: () => source.poll(), readLocal: async () => [], clock, log: silent });
  return { source, refresher, clock };
}

describe("board refresher", () => {
  it("fetches on the first tick, then only polls while nothing changes", async () => {
    const { source, refresher } = setup();
    assert.equal(await refresher.tick(), "refetched");
    for (let i = 0; i < 10; i++) assert.equal(await refresher.tick(), "unchanged");
    assert.equal(source.calls.fetch, 1);
    assert.equal(source.calls.poll, 11);
    source.version += 1;
    assert.equal(await refresher.tick(), "refetched");
    assert.equal(source.calls.fetch, 2);
  });

  it("keeps the last good board beside the error when a fetch fails, and clears it on success", async () => {
    const { source, refresher } = setup();
    await refresher.tick();
    source.failNext = new BoardSourceError("server", "GitHub answered 502 Bad Gateway", { status: 502 });
    assert.equal(await refresher.refresh(), "failed");
    const view = refresher.view();
    assert.equal(view.model?.total, 2, "the board is not emptied");
    assert.equal(view.error?.reason, "server");
    assert.equal(await refresher.refresh(), "refetched");
    assert.equal(refresher.view().error, null);
  });

  it("shows the error with no model when the very first fetch fails, then retries on the next tick", async () => {
    const { source, refresher } = setup();
    source.failNext = new Error("socket hang up");
    assert.equal(await refresher.tick(), "failed");
    assert.equal(refresher.view().model, null);
    assert.equal(refresher.view().error?.reason, "internal");
    assert.equal(await refresher.tick(), "refetched");
  });

  it("joins a refresh already in flight", async () => {
    const { source, refresher } = setup();
    const [a, b] = await Promise.all([refresher.refresh(), refresher.refresh()]);
    assert.deepEqual([a, b, source.calls.fetch], ["refetched", "refetched", 1]);
  });

  it("waits as long as the server asks, backs off after failures, and honours a rate-limit reset", async () => {
    const { source, refresher, clock } = setup();
    source.pollInterval = 90;
    await refresher.tick();
    assert.equal(refresher.nextDelayMs(60), 90_000);
    assert.equal(refresher.nextDelayMs(120), 120_000);
    source.failNext = new BoardSourceError("network", "connect ECONNREFUSED");
    await refresher.refresh();
    assert.equal(refresher.nextDelayMs(60), 180_000);
    source.failNext = new BoardSourceError("rate-limited", "rate limit", { retryAt: new Date(clock.t + 40 * 60_000) });
    await refresher.refresh();
    assert.equal(refresher.nextDelayMs(60), 40 * 60_000);
  });

  it("tells listeners when loading starts and ends", async () => {
    const { refresher } = setup();
    const seen: boolean[] = [];
    refresher.onDidChange(() => seen.push(refresher.view().loading));
    await refresher.tick();
    assert.deepEqual(seen, [true, false]);
  });
});
