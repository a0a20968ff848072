/**
 * Writes that are POSTs get no blind retry from the client (client.ts): a lost response may hide a
 * write that landed. But a 5xx usually means it did not, and giving up on the first one costs a
 * Ticket (a skipped claim, a hand-off at "pr", an ending that never reached the board). So a POST
 * that failed with a 5xx is retried here, safely:
 *   - an idempotent write (labels, assignees, edits of existing comments) is simply sent again;
 *   - a write that creates something first looks for it (the comment with exactly this body by us,
 *     the open pull request of this head) and only sends again when it is not there.
 * A refusal (4xx) is never retried: it is an answer, not a fault.
 */
import type { Log } from "../../ports/log";

export interface SafeRetryOptions<T> {
  what: string;
  /** Looks for the result of an attempt that landed although its response was an error. */
  landed?: () => Promise<T | null>;
  /** Attempts in all. Default 3. */
  tries?: number;
  /** Wait before looking and sending again (lets a lagging read catch up). Default 1000 ms. */
  waitMs?: number;
  log?: Log;
}

function isTransient(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return typeof status === "number" && status >= 500;
}

export async function withSafeRetry<T>(attempt: () => Promise<T>, o: SafeRetryOptions<T>): Promise<T> {
  const tries = o.tries ?? 3;
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error) || i >= tries) throw error;
      o.log?.warn(`${o.what} failed with a server error; checking whether it landed, then sending it again`, { attempt: i, error: String(error) });
      await new Promise((r) => setTimeout(r, (o.waitMs ?? 1000) * i));
      const found = o.landed ? await o.landed().catch(() => null) : null;
      if (found !== null) return found;
    }
  }
}
