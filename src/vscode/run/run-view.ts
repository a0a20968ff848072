// No `vscode` import: a Run's picture as the window shows it, folded from the Run's events
// (src/core/run/run-events.ts, the one way a front door observes a Run). Unit-tested without VS Code.
import type { EndingKind, RunEvent } from "../../core/run/run-events";
import { clock } from "../../core/text/time";
import type { LaneActivity, RunStatus } from "../status-bar";

export interface LaneView {
  readonly lane: number;
  readonly ticket: number;
  readonly title: string;
  /** null between the lane's start and its first Stage (claimed, worktree being made). */
  readonly stage: string | null;
  readonly stageStartedAt: string | null;
  readonly resumed: boolean;
}

export interface EndedTicket {
  readonly ticket: number;
  readonly ending: EndingKind;
  readonly line: string;
}

export interface RunView {
  readonly phase: "starting" | "running" | "stopping" | "ended";
  readonly repo: string;
  readonly runId: string | null;
  readonly lanes: number;
  readonly narrowedTo: readonly number[] | null;
  /** Busy lanes, by lane index. */
  readonly busy: readonly LaneView[];
  /** What the Stop found in the lanes (the status bar's "finishing #4 #9"). */
  readonly finishing: readonly number[];
  readonly ended: readonly EndedTicket[];
  readonly summary: readonly string[] | null;
  readonly exitCode: number | null;
}

export function startingView(repo: string, lanes: number, narrowedTo: readonly number[] | null): RunView {
  return { phase: "starting", repo, runId: null, lanes, narrowedTo, busy: [], finishing: [], ended: [], summary: null, exitCode: null };
}

/** Folds one event in. Transcript lines change nothing here (they go to the output channels). */
export function reduceRunView(view: RunView, event: RunEvent): RunView {
  switch (event.kind) {
    case "run-started":
      return { ...view, phase: view.phase === "stopping" ? "stopping" : "running", runId: event.runId, lanes: event.lanes, narrowedTo: event.narrowedTo };
    case "lane-started": {
      const lane: LaneView = { lane: event.lane, ticket: event.ticket, title: event.title, stage: null, stageStartedAt: event.at, resumed: event.resumed };
      return { ...view, busy: sortLanes([...view.busy.filter((l) => l.lane !== event.lane), lane]) };
    }
    case "stage-started":
      return { ...view, busy: view.busy.map((l) => (l.ticket === event.ticket ? { ...l, stage: event.stage, stageStartedAt: event.at } : l)) };
    case "stage-ended":
    case "transcript":
      return view;
    case "ticket-ended": {
      const ended = [...view.ended, { ticket: event.ticket, ending: event.ending, line: event.line }];
      const busy = event.lane === null ? view.busy : view.busy.filter((l) => !(l.lane === event.lane && l.ticket === event.ticket));
      return { ...view, ended, busy, finishing: view.finishing.filter((n) => n !== event.ticket || busy.some((l) => l.ticket === n)) };
    }
    case "run-stopping":
      return { ...view, phase: "stopping", finishing: [...event.holding] };
    case "run-ended":
      return { ...view, phase: "ended", busy: [], summary: [...event.lines], exitCode: event.exitCode };
  }
}

function sortLanes(lanes: LaneView[]): LaneView[] {
  return lanes.sort((a, b) => a.lane - b.lane);
}

function activity(l: LaneView): LaneActivity {
  // `HH:MM` in UTC, like the run id and the Stop line.
  const since = clock(l.stageStartedAt, "minutes");
  return { ticket: l.ticket, stage: l.stage ?? "setup", title: l.title, ...(since ? { since } : {}) };
}

/** What the status bar shows for this picture (null view = no Run in this window). */
export function runStatusOf(view: RunView | null): RunStatus {
  if (!view || view.phase === "ended") return { kind: "idle" };
  const busy = view.busy.map(activity);
  if (view.phase === "starting") return { kind: "starting", repo: view.repo };
  if (view.phase === "stopping") return { kind: "stopping", finishing: view.finishing, busy, repo: view.repo };
  return { kind: "running", lanes: view.lanes, busy, repo: view.repo };
}
