/**
 * The lease heartbeat of one ticket: renews the lease at an interval and re-reads rival leases.
 * "yield" (an earlier claim was found late) stops the ticket without writing anything more.
 */
import type { RunEnv, TicketCtx } from "./context";
import { errorText } from "./context";
import { silence } from "./stages";

export function startHeartbeat(env: RunEnv, ctx: TicketCtx): () => void {
  const stop = new AbortController();
  const everyMs = env.config.lease.heartbeatMinutes * 60_000;
  const loop = async () => {
    for (;;) {
      await env.deps.clock.sleep(everyMs, stop.signal);
      if (stop.signal.aborted || ctx.silenced) return;
      try {
        if ((await env.deps.gate.heartbeat(ctx.claim)) === "yield") {
          silence(env, ctx, "the heartbeat found an earlier claim");
          return;
        }
      } catch (error) {
        // One missed renewal is not fatal: the TTL outlasts the interval.
        env.deps.log.warn(`#${ctx.ticket}: heartbeat failed; trying again next interval`, { error: errorText(error) });
      }
    }
  };
  void loop();
  return () => stop.abort();
}
