/**
 * N Lanes, filled and refilled as they free up. Picking the next ticket is done one at a time by
 * this loop (each pick sees the ones before it); taking it (its claim) and its pipeline run in its
 * Lane, side by side with the other Lanes' (ADR 0260). A Release or a Stop ends the picking; the
 * busy Lanes finish. A kill ends the loop on the spot.
 */
import type { RunEnv, TicketCtx } from "./context";
import { errorText } from "./context";
import { startHeartbeat } from "./heartbeat";
import { runTicket } from "./pipeline";
import type { TicketEnding } from "./pipeline";
import type { TicketSources } from "./sources";
import type { SummaryRow } from "./summary";
import { takeTicket } from "./take";
import type { Candidate } from "./take";
import { limitResetOf, noteLimit } from "./github-limit";

/** How long a Run waits before a second try at a ticket whose take met a fault. */
const RETAKE_PAUSE_MS = 3000;
/** The longest a merged ticket's end-of-ticket writes wait for its Lane's next agent (ADR 0505). */
export const AFTER_MERGE_WAIT_MS = 10_000;
/** The longest the next pick waits for the Lane started before it to have its agent at work (ADR 0506). */
export const LANE_START_WAIT_MS = 5_000;
/** Stages that start a process of their own: their start is still the Lane's start. */
const PROCESS_STAGES: ReadonlySet<string> = new Set(["implement", "verify", "fix", "conflict", "checks"]);

function rowFor(ticket: number, ending: TicketEnding): SummaryRow {
  return { ticket, ending: ending.kind, line: ending.line };
}

export async function drainLanes(
  env: RunEnv,
  laneCount: number,
  sources: TicketSources,
  record: (row: SummaryRow, lane: number | null) => void,
  killed: Promise<void>,
): Promise<void> {
  /** A Lane is busy from the moment its ticket is picked: through the take, then the pipeline. */
  const busy = new Map<number, Promise<void>>();
  const seen = new Set<number>();
  /** Tickets whose take failed on a fault once already in this Run. */
  const retried = new Set<number>();
  /** Merged tickets' clean-ups, off their Lanes' path (ADR 0485): the Run ends only once they are done. */
  const cleanups = new Set<Promise<void>>();
  const canTake = () => !env.flags.stopping && !env.flags.rateLimited && !env.flags.unavailable && !env.flags.killed;

  /**
   * Clean-ups not started yet, by the Lane of their ticket (ADR 0505). A merged ticket's writes wait
   * until that Lane's next ticket has an agent at work (its first transcript line), so they do not
   * meet the next take, its worktree and the agent's start, which every Lane of every Host does at
   * the same moment; or until that next ticket ends or a Stage of it ends first, the Lane takes
   * nothing more, the Run stops, or AFTER_MERGE_WAIT_MS passes.
   */
  const waiting = new Map<number, { ticket: number; start: () => void }[]>();
  /** Starts the clean-ups waiting on `lane` (every Lane's when none is named), but those of `except`. */
  const startWaiting = (lane?: number, except?: number): void => {
    for (const [l, entries] of [...waiting]) {
      if (lane !== undefined && l !== lane) continue;
      const [go, stay] = [entries.filter((e) => e.ticket !== except), entries.filter((e) => e.ticket === except)];
      if (stay.length > 0) waiting.set(l, stay);
      else waiting.delete(l);
      for (const entry of go) entry.start();
    }
  };
  const defer = (lane: number, begin: () => Promise<void>, ticket: number): void => {
    const capped = new AbortController();
    let started = false;
    const start = (): void => {
      if (started) return;
      started = true;
      capped.abort();
      const cleanup = begin()
        .catch((error: unknown) => env.deps.log.error(`#${ticket}: the clean-up after the merge failed`, { error: errorText(error) }))
        .finally(() => cleanups.delete(cleanup));
      cleanups.add(cleanup);
    };
    if (!canTake()) return start();
    waiting.set(lane, [...(waiting.get(lane) ?? []), { ticket, start }]);
    void env.deps.clock.sleep(AFTER_MERGE_WAIT_MS, capped.signal).then(start);
  };
  /**
   * The Lane whose start is under way (ADR 0506): picked, taken, its worktree made and its agent
   * starting. The next pick waits until that Lane's agent is at work (its first transcript line), a
   * Stage without a process of its own starts, a Stage or the ticket ends, its take gives up, or
   * LANE_START_WAIT_MS passes, so a Host's Lanes do not all do the dearest step at the same moment.
   */
  let starting: { lane: number; ticket: number; done: () => void; settled: Promise<void> } | null = null;
  const unsubscribe = env.events.subscribe((event) => {
    const atWork =
      event.kind === "transcript" ||
      event.kind === "stage-ended" ||
      event.kind === "ticket-ended" ||
      (event.kind === "stage-started" && !PROCESS_STAGES.has(event.stage));
    if (starting && atWork && event.lane === starting.lane && event.ticket === starting.ticket) starting.done();
    if (event.kind !== "transcript" && event.kind !== "stage-ended" && event.kind !== "ticket-ended") return;
    // The merged ticket's own ending says nothing about the Lane's next ticket.
    if (event.lane !== null && waiting.has(event.lane)) startWaiting(event.lane, event.ticket);
  });

  const startLane = (lane: number, ctx: TicketCtx): Promise<void> => {
    env.held.set(lane, ctx);
    env.events.emit({
      kind: "lane-started",
      lane,
      ticket: ctx.ticket,
      title: ctx.issue.title,
      resumed: ctx.resumedFrom !== null,
      at: env.deps.clock.now().toISOString(),
    });
    const stopHeartbeat = startHeartbeat(env, ctx);
    return runTicket(env, ctx)
      .catch((error): TicketEnding => ({ kind: "handed-off", stage: "run", line: `unexpected error: ${errorText(error)}` }))
      .then((ending) => {
        stopHeartbeat();
        env.held.delete(lane);
        if (ending.kind === "merged" && ending.cleanup) defer(lane, ending.cleanup, ctx.ticket);
        if (!env.flags.killed) record(rowFor(ctx.ticket, ending), lane);
      });
  };

  /** The take of a picked ticket, then its pipeline; the Lane stays busy until both are done. */
  const takeInto = async (lane: number, candidate: Candidate): Promise<void> => {
    const ticket = candidate.issue.number;
    const taken = await takeTicket(env, candidate, lane);
    if (taken.taken) {
      if (!env.flags.killed) await startLane(lane, taken.ctx);
      return;
    }
    startWaiting(lane);
    if (taken.transient && candidate.kind === "frontier" && !retried.has(ticket)) {
      // A fault, not an answer: one more try in this Run, after a pause, rather than leaving the
      // ticket to the next Run. Only a Frontier ticket: the source lists it again once unseen.
      retried.add(ticket);
      env.deps.log.warn(`#${ticket}: could not be taken (${taken.reason}); trying once more in ${RETAKE_PAUSE_MS / 1000} s`);
      await Promise.race([env.deps.clock.sleep(RETAKE_PAUSE_MS), killed]);
      seen.delete(ticket);
      return;
    }
    if (taken.limitResetsAt) noteLimit(env, taken.limitResetsAt);
    else if (candidate.kind === "frontier" && !taken.transient) sources.contended();
    record({ ticket, ending: "skipped", line: taken.reason }, null);
  };

  const startOf = (lane: number, ticket: number, work: Promise<void>): NonNullable<typeof starting> => {
    const capped = new AbortController();
    let done!: () => void;
    const atWork = new Promise<void>((resolve) => (done = resolve));
    const settled = Promise.race([atWork, work, env.deps.clock.sleep(LANE_START_WAIT_MS, capped.signal).catch(() => undefined)]).then(() => {
      capped.abort();
      if (starting?.settled === settled) starting = null;
    });
    return { lane, ticket, done, settled };
  };

  try {
    for (;;) {
      if (env.flags.killed) return;
      if (starting) await Promise.race([starting.settled, killed]);
      if (env.flags.killed) return;
      const free = Array.from({ length: laneCount }, (_, i) => i).find((i) => !busy.has(i));
      // Picks take turns (each sees what the last one picked); takes and pipelines run side by side.
      let candidate: Candidate | null = null;
      try {
        candidate = canTake() && free !== undefined ? await sources.next(seen) : null;
      } catch (error) {
        // GitHub's rate limit while choosing: take nothing more, say when it resets (ADR 0240).
        const reset = limitResetOf(error);
        if (!reset) throw error;
        noteLimit(env, reset);
        env.deps.log.warn(`${errorText(error)}; taking no more tickets in this Run`);
      }
      const picked = candidate;
      if (free !== undefined && picked && canTake()) {
        seen.add(picked.issue.number);
        const work = takeInto(free, picked)
          .catch((error: unknown) => env.deps.log.error(`#${picked.issue.number}: the Lane failed`, { error: errorText(error) }))
          .finally(() => busy.delete(free));
        busy.set(free, work);
        starting = startOf(free, picked.issue.number, work);
        continue;
      }
      // Nothing more for a free Lane, or no more takes: what waits for a next agent would wait in vain.
      if ((free !== undefined && !picked) || !canTake()) startWaiting();
      if (busy.size === 0) {
        await Promise.race([Promise.all(cleanups), killed]);
        return;
      }
      await Promise.race([...busy.values(), killed]);
    }
  } finally {
    unsubscribe();
    // A loop left by a throw: what waited starts now, as it would have at the Run's end (not after a kill).
    if (!env.flags.killed) startWaiting();
  }
}
