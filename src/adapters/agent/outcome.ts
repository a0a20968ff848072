/**
 * Decides a Stage's outcome from what the session left behind. Pure, so every rule is unit-tested.
 *
 * Order (first match wins):
 *   1. aborted by the caller          -> nonzero-exit (aborted)
 *   2. a clean success                -> success. Never rate-limited, whatever it says about limits.
 *   3. a rate-limit sign              -> rate-limited (429, then a rejected rate_limit_event, then
 *                                        limit wording in the result text, then in stderr: read last
 *                                        because its wording has changed before)
 *   4. the time limit passed          -> timed-out
 *   5. result subtype error_max_turns -> turn-capped
 *   6. exit code not 0 / killed       -> nonzero-exit
 *   7. a broken stream                -> invalid-result (no result, garbage, > 10 MB line, bad UTF-8)
 *   8. an error result that exited 0  -> nonzero-exit (the agent said it failed)
 * A rate limit is checked before the timeout because a session stalled by the limit is the
 * limit's fault: Releasing it costs nothing, a Hand-off costs a person.
 */
import type { RateLimitSign, StageOutcome } from "../../ports/agent-runner";
import type { ResultEvent } from "./stream-events";

export const LIMIT_WORDING = /usage limit|session limit|rate limit|rate_limit/i;

export interface SessionFacts {
  aborted: boolean;
  timedOut: boolean;
  timeoutMs: number;
  exitCode: number | null;
  signal: string | null;
  /** The last result event, if one was read. */
  result: ResultEvent | null;
  sawRejectedRateLimit: boolean;
  /** Why the stream is not trustworthy, in the order found. Empty when it is. */
  damage: string[];
  /** The end of stderr (the runner keeps the last few KB). */
  stderrTail: string;
  /** The executable could not be started at all. */
  spawnError: string | null;
}

export interface Decision {
  outcome: StageOutcome;
  detail?: string;
  rateLimitSign?: RateLimitSign;
}

function lastLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
  const last = lines[lines.length - 1] ?? "";
  return last.length > 300 ? last.slice(0, 299) + "…" : last;
}

export function isCleanSuccess(f: SessionFacts): boolean {
  return (
    !f.aborted &&
    !f.timedOut &&
    f.spawnError === null &&
    f.exitCode === 0 &&
    f.damage.length === 0 &&
    f.result !== null &&
    f.result.subtype === "success" &&
    !f.result.is_error
  );
}

/** The first rate-limit sign present, in the order of ADR 0050's table; null when none is. Only meaningful for a failed session. */
export function rateLimitSign(f: SessionFacts): RateLimitSign | null {
  if (f.result?.api_error_status === 429) return "api-error-429";
  if (f.sawRejectedRateLimit) return "rejected-event";
  if (f.result?.result && LIMIT_WORDING.test(f.result.result)) return "result-wording";
  if (LIMIT_WORDING.test(f.stderrTail)) return "stderr-wording";
  return null;
}

function exitText(f: SessionFacts): string {
  return f.signal ? `killed by ${f.signal}` : `exited ${f.exitCode}`;
}

export function decideOutcome(f: SessionFacts): Decision {
  if (f.aborted) return { outcome: "nonzero-exit", detail: "the Stage was stopped (aborted) and its process group killed" };
  if (f.spawnError !== null) return { outcome: "nonzero-exit", detail: f.spawnError };
  if (isCleanSuccess(f)) return { outcome: "success" };

  const sign = rateLimitSign(f);
  if (sign) {
    const why: Record<RateLimitSign, string> = {
      "api-error-429": "the API answered 429",
      "rejected-event": "a rate_limit_event said rejected",
      "result-wording": `the result says: ${lastLine(f.result?.result ?? "")}`,
      "stderr-wording": `stderr says: ${lastLine(f.stderrTail.split("\n").filter((l) => LIMIT_WORDING.test(l)).join("\n"))}`,
    };
    return { outcome: "rate-limited", rateLimitSign: sign, detail: `rate limited: ${why[sign]}` };
  }
  if (f.timedOut) return { outcome: "timed-out", detail: `no result within ${Math.round(f.timeoutMs / 1000)} s; the agent's process group was killed` };
  if (f.result?.subtype === "error_max_turns") return { outcome: "turn-capped", detail: `stopped at the turn limit after ${f.result.num_turns} turns` };
  if (f.exitCode !== 0) {
    const err = lastLine(f.stderrTail) || lastLine(f.result?.result ?? "");
    return { outcome: "nonzero-exit", detail: `the agent ${exitText(f)}${err ? `: ${err}` : ""}` };
  }
  if (f.damage.length > 0) return { outcome: "invalid-result", detail: `the agent's output is not a valid stream: ${f.damage.slice(0, 3).join("; ")}` };
  if (f.result === null) return { outcome: "invalid-result", detail: "the agent exited 0 without a result event (truncated stream)" };
  const text = lastLine(f.result.result ?? "");
  return { outcome: "nonzero-exit", detail: `the agent reported ${f.result.subtype}${f.result.is_error ? " (is_error)" : ""}${text ? `: ${text}` : ""}` };
}
