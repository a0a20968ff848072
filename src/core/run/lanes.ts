/**
 * N Lanes, filled and refilled as they free up. Taking a ticket (its claim) is done one at a time
 * by this loop; the tickets' pipelines run side by side. A Release or a Stop ends the taking; the
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

/** How long a Run waits before a second try at a ticket whose take met a fault. */
export const RETAKE_PAUSE_MS = 3000;

function rowFor(ticket: number, ending: TicketEnding): SummaryRow {
  return { ticket, ending: ending.kind, line: ending.line };
}

export async function drainLanes(env: RunEnv, laneCount: number, sources: TicketSources, record: (row: SummaryRow, lane: number | null) => void, killed: Promise<void>): Promise<void> {
  const busy = new Map<number, Promise<void>>();
  const seen = new Set<number>();
  /** Tickets whose take failed on a fault once already in this Run. */
  const retried = new Set<number>();
  const canTake = () => !env.flags.stopping && !env.flags.rateLimited && !env.flags.unavailable && !env.flags.killed;

  const startLane = (lane: number, ctx: TicketCtx) => {
    env.held.set(lane, ctx);
    env.events.emit({ kind: "lane-started", lane, ticket: ctx.ticket, title: ctx.issue.title, resumed: ctx.resumedFrom !== null, at: env.deps.clock.now().toISOString() });
    const stopHeartbeat = startHeartbeat(env, ctx);
    const work = runTicket(env, ctx)
      .catch((error): TicketEnding => ({ kind: "handed-off", stage: "run", line: `unexpected error: ${errorText(error)}` }))
      .then((ending) => {
        stopHeartbeat();
        env.held.delete(lane);
        busy.delete(lane);
        if (!env.flags.killed) record(rowFor(ctx.ticket, ending), lane);
      });
    busy.set(lane, work);
  };

  for (;;) {
    if (env.flags.killed) return;
    let idle = true;
    const free = Array.from({ length: laneCount }, (_, i) => i).find((i) => !busy.has(i));
    if (canTake() && free !== undefined) {
      const candidate = await sources.next(seen);
      if (candidate && canTake()) {
        idle = false;
        seen.add(candidate.issue.number);
        const taken = await takeTicket(env, candidate, free);
        if (!taken.taken && taken.transient && candidate.kind === "frontier" && !retried.has(candidate.issue.number)) {
          // A fault, not an answer: one more try in this Run, after a pause, rather than leaving the
          // ticket to the next Run. Only a Frontier ticket: the source lists it again once unseen.
          retried.add(candidate.issue.number);
          seen.delete(candidate.issue.number);
          env.deps.log.warn(`#${candidate.issue.number}: could not be taken (${taken.reason}); trying once more in ${RETAKE_PAUSE_MS / 1000} s`);
          await Promise.race([env.deps.clock.sleep(RETAKE_PAUSE_MS), killed]);
        } else if (!taken.taken) {
          if (candidate.kind === "frontier" && !taken.transient) sources.contended();
          record({ ticket: candidate.issue.number, ending: "skipped", line: taken.reason }, null);
        }
        else if (env.flags.killed) return;
        else startLane(free, taken.ctx);
      }
    }
    if (!idle) continue;
    if (busy.size === 0) return;
    await Promise.race([...busy.values(), killed]);
  }
}
