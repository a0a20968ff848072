/**
 * Decides a Stage's outcome from what the session left behind. Pure, so every rule is unit-tested.
 *
 * Order (first match wins):
 *   1. aborted by the caller          -> nonzero-exit (aborted)
 *   2. a clean success                -> success. Never rate-limited, whatever it says about limits.
 *   3. a rate-limit sign              -> rate-limited (429, then a rejected rate_limit_event, then
 *                                        limit wording in the result text, then in stderr: read last
 *                                        because its wording has changed before; then a session that
 *                                        was still retrying a 429, e.g. cut by the time limit)
 *   4. the agent cannot work at all   -> unavailable (not signed in, refused to start, the provider
 *                                        down after the CLI's own retries: 5xx, 529, connection lost)
 *   5. the time limit passed          -> timed-out
 *   6. result subtype error_max_turns -> turn-capped
 *   7. exit code not 0 / killed       -> nonzero-exit
 *   8. a broken stream                -> invalid-result (no result, garbage, > 10 MB line, bad UTF-8)
 *   9. an error result that exited 0  -> nonzero-exit (the agent said it failed)
 * The signs were read from Claude Code 2.1.332 against the scripted model server
 * (test/fixtures/claude-streams/README.md).
 * A rate limit is checked before the timeout because a session stalled by the limit is the
 * limit's fault: Releasing it costs nothing, a Hand-off costs a person.
 */
import type { RateLimitSign, StageOutcome, UnavailableReason } from "../../ports/agent-runner";
import type { ResultEvent } from "./stream-events";

/**
 * Every limit wording the CLI prints: "You've hit your 5-hour limit", "… weekly limit", "… Opus
 * limit", "… Sonnet limit", "… session limit", "Claude AI usage limit reached", "out of usage
 * credits", "monthly spend limit", and the API's "rate limit".
 */
const LIMIT_WORDING =
  /usage limit|session limit|rate limit|rate_limit|hit your [\w -]*limit|weekly limit|opus limit|sonnet limit|out of (extra )?usage|usage credits|spend limit/i;

/** The CLI has no credentials. */
const NOT_SIGNED_IN = /not logged in|please run \/login|invalid api key|oauth token (has expired|is invalid)|authentication_error/i;
/** The CLI refuses --dangerously-skip-permissions / bypassPermissions as root. */
const REFUSED_AS_ROOT = /cannot be used with root\/sudo privileges/i;

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
  /** The executable is not there (ENOENT). */
  spawnMissing?: boolean;
  /** An assistant message carried `error: "authentication_failed"`. */
  authFailed?: boolean;
  /** The error_status of the last `system/api_retry` (null: a lost connection); undefined when none. */
  lastRetryStatus?: number | null;
}

export interface Decision {
  outcome: StageOutcome;
  detail?: string;
  rateLimitSign?: RateLimitSign;
  unavailable?: UnavailableReason;
}

/** The last non-blank line, trimmed and cut at 300 characters: what a detail quotes of an agent's words. */
export function lastLine(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const last = lines[lines.length - 1] ?? "";
  return last.length > 300 ? last.slice(0, 299) + "…" : last;
}

function isCleanSuccess(f: SessionFacts): boolean {
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
  if (f.lastRetryStatus === 429) return "retrying-429";
  return null;
}

function isServerDown(status: number | null | undefined): boolean {
  return status === null || (typeof status === "number" && status >= 500);
}

/** Why the agent could not work at all, whatever the ticket; null when it could. Only meaningful for a failed session. */
function unavailableReason(f: SessionFacts): UnavailableReason | null {
  if (f.spawnMissing) return "not-installed";
  const said = `${f.result?.result ?? ""}\n${f.stderrTail}`;
  if (f.authFailed || NOT_SIGNED_IN.test(said)) return "not-signed-in";
  if (REFUSED_AS_ROOT.test(f.stderrTail)) return "refused-to-start";
  const r = f.result;
  if (r && r.terminal_reason === "api_error" && (isServerDown(r.api_error_status) || r.api_error === "connection_failed")) return "provider-down";
  // Cut while the CLI was still retrying an overloaded, failing or unreachable API.
  if (f.timedOut && f.lastRetryStatus !== undefined && isServerDown(f.lastRetryStatus)) return "provider-down";
  return null;
}

function exitText(f: SessionFacts): string {
  return f.signal ? `killed by ${f.signal}` : `exited ${f.exitCode}`;
}

export function decideOutcome(f: SessionFacts): Decision {
  if (f.aborted) return { outcome: "nonzero-exit", detail: "the Stage was stopped (aborted) and its process group killed" };
  if (f.spawnError !== null && !f.spawnMissing) return { outcome: "nonzero-exit", detail: f.spawnError };
  if (isCleanSuccess(f)) return { outcome: "success" };

  const sign = rateLimitSign(f);
  if (sign) {
    const why: Record<RateLimitSign, string> = {
      "api-error-429": "the API answered 429",
      "rejected-event": "a rate_limit_event said rejected",
      "result-wording": `the result says: ${lastLine(f.result?.result ?? "")}`,
      "stderr-wording": `stderr says: ${lastLine(
        f.stderrTail
          .split("\n")
          .filter((l) => LIMIT_WORDING.test(l))
          .join("\n"),
      )}`,
      "retrying-429": `the agent was still retrying an API answer 429 when it ${f.timedOut ? "ran out of time" : "stopped"}`,
    };
    return { outcome: "rate-limited", rateLimitSign: sign, detail: `rate limited: ${why[sign]}` };
  }
  const unavailable = unavailableReason(f);
  if (unavailable) {
    const said =
      f.spawnError ??
      (lastLine(f.result?.result ?? "") ||
        lastLine(f.stderrTail) ||
        (f.timedOut
          ? `no answer within ${Math.round(f.timeoutMs / 1000)} s while the agent retried the API (last status ${f.lastRetryStatus ?? "connection lost"})`
          : `the agent ${exitText(f)}`));
    return { outcome: "unavailable", unavailable, detail: said };
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
