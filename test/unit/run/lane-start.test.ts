import { strict as assert } from "node:assert";
import { LANE_START_WAIT_MS } from "../../../src/core/run/lanes";
import { World, deferred } from "./world";

// ADR 0506: a Lane's start (its take, its worktree, its agent's start) waits for the Lane started before it.
describe("Run: Lanes start one after another", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  /** Records each claim in `journal` as it is asked for. */
  function journalClaims(journal: string[]): void {
    const claim = w.gate.claim.bind(w.gate);
    w.gate.claim = async (ticket) => {
      journal.push(`claim #${ticket}`);
      return claim(ticket);
    };
  }

  it("the second Lane's take waits until the first Lane's agent is at work; both tickets merge", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    const journal: string[] = [];
    journalClaims(journal);
    const run = w.run({ lanes: 2 });
    run.events.subscribe((e) => {
      if (e.kind === "transcript" && !journal.includes(`#${e.ticket} first line`)) journal.push(`#${e.ticket} first line`);
    });
    const summary = await run.start();
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged", "merged"],
    );
    const at = (entry: string) => journal.indexOf(entry);
    assert.ok(at(`claim #${a}`) >= 0 && at(`claim #${b}`) >= 0, journal.join(", "));
    assert.ok(at(`claim #${b}`) > at(`#${a} first line`), `B's take waited for A's agent: ${journal.join(", ")}`);
    assert.equal(w.clock.advancedMs < LANE_START_WAIT_MS, true, "no wait ran out: A's agent spoke first");
  });

  it("a first Lane whose take stalls holds the next Lane back no longer than LANE_START_WAIT_MS", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    const journal: string[] = [];
    const release = deferred();
    const claim = w.gate.claim.bind(w.gate);
    w.gate.claim = async (ticket) => {
      journal.push(`claim #${ticket} at ${w.clock.advancedMs}`);
      if (ticket === a) await release.promise;
      return claim(ticket);
    };
    const run = w.run({ lanes: 2 });
    run.events.subscribe((e) => {
      if (e.kind === "lane-started" && e.ticket === b) release.resolve();
    });
    const summary = await run.start();
    assert.deepEqual(
      summary.rows.map((r) => r.ticket).sort((x, y) => x - y),
      [a, b],
    );
    assert.ok(summary.rows.every((r) => r.ending === "merged"));
    assert.deepEqual(journal, [`claim #${a} at 0`, `claim #${b} at ${LANE_START_WAIT_MS}`], "B waited out the cap, then went ahead");
  });

  it("a take that gives up lets the next Lane start at once", async () => {
    const a = w.ticket("A");
    const b = w.ticket("B");
    w.gate.claimOverride = (ticket) => (ticket === a ? { kind: "lost", reason: "claimed by alice" } : null);
    const summary = await w.run({ lanes: 2 }).start();
    assert.deepEqual(summary.rows.map((r) => [r.ticket, r.ending]).sort(), [
      [a, "skipped"],
      [b, "merged"],
    ]);
    assert.ok(w.clock.advancedMs < LANE_START_WAIT_MS, `nothing waited out the cap (${w.clock.advancedMs} ms)`);
  });
});
