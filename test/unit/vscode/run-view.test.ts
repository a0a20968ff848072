import * as assert from "node:assert/strict";
import type { RunEvent } from "../../../src/core/run/run-events";
import { reduceRunView, runStatusOf, startingView, type RunView } from "../../../src/vscode/run/run-view";

const at = "2026-09-17T10:02:03.000Z";
const fold = (events: RunEvent[]): RunView => events.reduce(reduceRunView, startingView("demo/shop", 2, null));

describe("the window's picture of a Run", () => {
  it("is 'starting' until the Run holds the lock", () => {
    assert.deepEqual(runStatusOf(fold([])), { kind: "starting", repo: "demo/shop" });
  });

  it("follows each lane's ticket and Stage, and drops a lane when its ticket ends", () => {
    const view = fold([
      { kind: "run-started", runId: "r1", lanes: 2, narrowedTo: null, at },
      { kind: "lane-started", lane: 0, ticket: 4, title: "Four", resumed: false, at },
      { kind: "lane-started", lane: 1, ticket: 9, title: "Nine", resumed: true, at },
      { kind: "stage-started", lane: 0, ticket: 4, stage: "implement", at },
      { kind: "stage-started", lane: 1, ticket: 9, stage: "checks", at },
    ]);
    const status = runStatusOf(view);
    assert.equal(status.kind, "running");
    assert.deepEqual(status.kind === "running" && status.busy.map((b) => `#${b.ticket} ${b.stage} ${b.since}`), ["#4 implement 10:02", "#9 checks 10:02"]);
    const after = reduceRunView(view, { kind: "ticket-ended", lane: 0, ticket: 4, ending: "merged", line: "PR #7", at });
    assert.deepEqual(
      after.busy.map((l) => l.ticket),
      [9],
    );
    assert.deepEqual(after.ended, [{ ticket: 4, ending: "merged", line: "PR #7" }]);
  });

  it("calls a lane's first moments 'setup'", () => {
    const view = fold([
      { kind: "run-started", runId: "r1", lanes: 1, narrowedTo: null, at },
      { kind: "lane-started", lane: 0, ticket: 3, title: "t", resumed: false, at },
    ]);
    const status = runStatusOf(view);
    assert.deepEqual(status.kind === "running" && status.busy[0]?.stage, "setup");
  });

  it("reads 'stopping: finishing' what the Stop found, and forgets each ticket as it ends", () => {
    let view = fold([
      { kind: "run-started", runId: "r1", lanes: 2, narrowedTo: null, at },
      { kind: "lane-started", lane: 0, ticket: 4, title: "Four", resumed: false, at },
      { kind: "lane-started", lane: 1, ticket: 9, title: "Nine", resumed: false, at },
      { kind: "run-stopping", holding: [4, 9], at },
    ]);
    assert.deepEqual(runStatusOf(view), {
      kind: "stopping",
      finishing: [4, 9],
      busy: runStatusOf(view).kind === "stopping" ? (runStatusOf(view) as { busy: unknown }).busy : [],
      repo: "demo/shop",
    });
    view = reduceRunView(view, { kind: "ticket-ended", lane: 0, ticket: 4, ending: "merged", line: "PR #7", at });
    const status = runStatusOf(view);
    assert.deepEqual(status.kind === "stopping" && status.finishing, [9]);
  });

  it("ignores transcript lines (same object: no repaint) and goes idle at the end", () => {
    const view = fold([{ kind: "run-started", runId: "r1", lanes: 1, narrowedTo: null, at }]);
    const same = reduceRunView(view, { kind: "transcript", lane: 0, ticket: 1, stage: "implement", event: { kind: "text", text: "hi" } });
    assert.equal(same, view);
    const ended = reduceRunView(view, { kind: "run-ended", exitCode: 0, lines: ["Done: 1 merged."], at });
    assert.deepEqual(runStatusOf(ended), { kind: "idle" });
    assert.deepEqual(ended.summary, ["Done: 1 merged."]);
  });

  it("a skipped ticket (never in a lane) leaves the lanes alone", () => {
    const view = fold([
      { kind: "run-started", runId: "r1", lanes: 1, narrowedTo: null, at },
      { kind: "lane-started", lane: 0, ticket: 2, title: "t", resumed: false, at },
      { kind: "ticket-ended", lane: null, ticket: 3, ending: "skipped", line: "not ready", at },
    ]);
    assert.deepEqual(
      view.busy.map((l) => l.ticket),
      [2],
    );
  });
});
