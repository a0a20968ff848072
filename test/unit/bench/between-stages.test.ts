import assert from "node:assert/strict";
import { betweenStages, betweenStagesLine } from "../../../bench/support/between-stages";
import type { TimelineEntry } from "../../../src/adapters/spawner/cpu-report";

/**
 * Lane 1 of one Run in `npm run bench:hosts -- --hosts 4 --dump <dir>` at 62ab7bc plus this change
 * (2026-12-02): ms since the bench spawned the Run, kind, ticket, Lane, Stage, as its
 * TICKET_RUNNER_CPU_FILE timeline had them (the other Lane's events left out).
 */
const EVENTS: [number, string, number | null, number | null, string | null][] = [
  [1076, "run-started", null, null, null],
  [1823, "lane-started", 3, 0, null],
  [2162, "stage-started", 3, 0, "implement"],
  [5417, "stage-ended", 3, 0, "implement"],
  [5417, "stage-started", 3, 0, "checks"],
  [5473, "stage-ended", 3, 0, "checks"],
  [5516, "stage-started", 3, 0, "verify"],
  [8644, "stage-ended", 3, 0, "verify"],
  [8662, "stage-started", 3, 0, "rebase"],
  [8702, "stage-ended", 3, 0, "rebase"],
  [8707, "stage-started", 3, 0, "pr"],
  [8855, "stage-ended", 3, 0, "pr"],
  [8855, "stage-started", 3, 0, "ci"],
  [12117, "stage-ended", 3, 0, "ci"],
  [12282, "stage-started", 3, 0, "merge"],
  [12400, "stage-ended", 3, 0, "merge"],
  [12773, "ticket-ended", 3, 0, null],
  [13236, "lane-started", 11, 0, null],
  [13632, "stage-started", 11, 0, "implement"],
  [16976, "stage-ended", 11, 0, "implement"],
  [16977, "stage-started", 11, 0, "checks"],
  [17021, "stage-ended", 11, 0, "checks"],
  [17063, "stage-started", 11, 0, "verify"],
  [20180, "stage-ended", 11, 0, "verify"],
  [20199, "stage-started", 11, 0, "rebase"],
  [20312, "stage-ended", 11, 0, "rebase"],
  [20426, "stage-started", 11, 0, "pr"],
  [20599, "stage-ended", 11, 0, "pr"],
  [20600, "stage-started", 11, 0, "ci"],
  [23846, "stage-ended", 11, 0, "ci"],
  [23976, "stage-started", 11, 0, "merge"],
  [24039, "stage-ended", 11, 0, "merge"],
  [24240, "ticket-ended", 11, 0, null],
  [24495, "lane-started", 21, 0, null],
  [24872, "stage-started", 21, 0, "implement"],
  [28124, "stage-ended", 21, 0, "implement"],
  [28124, "stage-started", 21, 0, "checks"],
  [28163, "stage-ended", 21, 0, "checks"],
  [28200, "stage-started", 21, 0, "verify"],
  [31329, "stage-ended", 21, 0, "verify"],
  [31346, "stage-started", 21, 0, "rebase"],
  [31466, "stage-ended", 21, 0, "rebase"],
  [31531, "stage-started", 21, 0, "pr"],
  [31689, "stage-ended", 21, 0, "pr"],
  [31690, "stage-started", 21, 0, "ci"],
  [34949, "stage-ended", 21, 0, "ci"],
  [35060, "stage-started", 21, 0, "merge"],
  [35121, "stage-ended", 21, 0, "merge"],
  [35420, "ticket-ended", 21, 0, null],
  [35980, "run-ended", null, null, null],
];

const timeline: TimelineEntry[] = EVENTS.map(([ms, kind, ticket, lane, stage]) => ({ ms, kind, ticket, lane, stage }));

describe("bench: the steps between Stages bench:hosts reads from the Runs' events", () => {
  const b = betweenStages([{ timeline, startedMs: 0, exitedMs: 36074 }]);

  it("times a Run's launch, its Lane's first pick, the takes between tickets and its exit", () => {
    assert.equal(b.tickets, 3);
    assert.equal(b.lanes, 1);
    assert.equal(b.steps.get("launch"), 1076);
    assert.equal(b.steps.get("first pick"), 1823 - 1076);
    assert.equal(b.steps.get("take"), 13236 - 12773 + (24495 - 24240));
    assert.equal(b.steps.get("exit"), 36074 - 35420);
  });

  it("times each gap from a Stage's end to the next one's start, and the last Stage to the ending", () => {
    assert.equal(b.steps.get("to implement"), 2162 - 1823 + (13632 - 13236) + (24872 - 24495));
    assert.equal(b.steps.get("ci → merge"), 12282 - 12117 + (23976 - 23846) + (35060 - 34949));
    assert.equal(b.steps.get("merge → ended"), 12773 - 12400 + (24240 - 24039) + (35420 - 35121));
    assert.equal(b.steps.get("rebase → pr"), 8707 - 8702 + (20426 - 20312) + (31531 - 31466));
    assert.equal(b.steps.has("implement"), false, "a Stage's own time is not a step between Stages");
  });

  it("prints seconds per ticket, largest first, and the Run's and the Lane's own steps apart", () => {
    const line = betweenStagesLine(b, 1);
    assert.match(line, /^s per ticket: to implement 0\.37 · merge → ended 0\.29 /);
    assert.match(line, /\| s per Run: launch 1\.08 · exit 0\.65 \| s per Lane: first pick 0\.75$/);
  });
});
