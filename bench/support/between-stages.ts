/**
 * Where a ticket's time goes between its Stages (bench:hosts), from each Run's own events
 * (TICKET_RUNNER_CPU_FILE's timeline): the take before a Lane starts, the step from a Lane's start
 * to its first Stage, each gap from one Stage's end to the next one's start, the step from the last
 * Stage to the ticket's ending, and a Run's start and end.
 */
import type { TimelineEntry } from "../../src/adapters/spawner/cpu-report";

/** Milliseconds summed per step, over every Run given; `tickets` is how many tickets ended. */
export interface BetweenStages {
  steps: Map<string, number>;
  tickets: number;
  /** How many Lanes took a first ticket (the first pick is a mean over them). */
  lanes: number;
}

function add(steps: Map<string, number>, step: string, ms: number): void {
  steps.set(step, (steps.get(step) ?? 0) + ms);
}

/**
 * Each Run's timeline, with when its process was started and when it exited (epoch ms). Steps:
 * "launch" (process start to run-started), "first pick" (run-started to a Lane's first
 * lane-started), "take" (a Lane's ticket-ended to its next lane-started), "to <stage>" (lane-started
 * to the first Stage), "<a> → <b>" (a Stage's end to the next one's start), "<stage> → ended" (the
 * last Stage's end to ticket-ended), "exit" (the Run's last ticket-ended to its exit).
 */
export function betweenStages(runs: { timeline: TimelineEntry[]; startedMs: number; exitedMs: number }[]): BetweenStages {
  const steps = new Map<string, number>();
  let tickets = 0;
  let lanes = 0;
  for (const run of runs) {
    const runStarted = run.timeline.find((e) => e.kind === "run-started")?.ms ?? run.startedMs;
    add(steps, "launch", runStarted - run.startedMs);
    const laneLast = new Map<number, TimelineEntry>();
    const ticketLast = new Map<number, TimelineEntry>();
    let lastEnded = runStarted;
    for (const e of run.timeline) {
      if (e.kind === "lane-started" && e.lane !== null && e.ticket !== null) {
        const before = laneLast.get(e.lane);
        add(steps, before ? "take" : "first pick", e.ms - (before?.ms ?? runStarted));
        if (!before) lanes += 1;
        ticketLast.set(e.ticket, e);
        continue;
      }
      if (e.ticket === null) continue;
      const prev = ticketLast.get(e.ticket);
      if (e.kind === "stage-started" && prev) {
        add(steps, prev.kind === "lane-started" ? `to ${e.stage}` : `${prev.stage} → ${e.stage}`, e.ms - prev.ms);
      }
      if (e.kind === "ticket-ended") {
        tickets += 1;
        lastEnded = Math.max(lastEnded, e.ms);
        if (prev) add(steps, prev.kind === "stage-ended" ? `${prev.stage} → ended` : "lane → ended", e.ms - prev.ms);
        if (e.lane !== null) laneLast.set(e.lane, e);
      }
      ticketLast.set(e.ticket, e);
    }
    add(steps, "exit", run.exitedMs - lastEnded);
  }
  return { steps, tickets, lanes };
}

/** "take 0.41 · pr → ci 0.20 · …" seconds per ticket, largest first; a Run's launch and exit per Run, the first pick per Lane. */
export function betweenStagesLine(b: BetweenStages, runs: number): string {
  const perRun = new Set(["launch", "first pick", "exit"]);
  const parts = [...b.steps]
    .filter(([step]) => !perRun.has(step))
    .sort((x, y) => y[1] - x[1])
    .map(([step, ms]) => `${step} ${(ms / 1000 / Math.max(1, b.tickets)).toFixed(2)}`);
  const per = (step: string, n: number) => ((b.steps.get(step) ?? 0) / 1000 / Math.max(1, n)).toFixed(2);
  return `s per ticket: ${parts.join(" · ")} | s per Run: launch ${per("launch", runs)} · exit ${per("exit", runs)} | s per Lane: first pick ${per("first pick", b.lanes)}`;
}
