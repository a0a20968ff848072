/**
 * How a Codex or Gemini CLI session ended, decided from what it left behind, in the same order as
 * Claude's (outcome.ts): aborted, a clean success (never rate-limited), a usage/quota limit, the
 * time limit, the turn cap, a non-zero exit, a broken stream. Each CLI words its failures its own
 * way; `CliWording` says which words mean a limit and which mean the agent itself is unavailable
 * (not signed in, a bad key, the provider down): not the ticket's fault (ADR 0200).
 */
import type { RateLimitSign } from "../../ports/agent-runner";
import type { ProcessFacts } from "./session-process";
import { lastLine } from "./outcome";
import type { Decision } from "./outcome";

export interface CliSessionFacts extends ProcessFacts {
  timeoutMs: number;
  /** The CLI reported the session complete (codex turn.completed, gemini result success). */
  completed: boolean;
  /** The CLI's own failure message(s), in order (codex turn.failed/error, gemini result error). */
  failures: string[];
  turns: number;
  /** The runner stopped the session at the turn cap. */
  turnCapped: boolean;
  maxTurns: number;
}

/** Why an agent could not work, whatever the ticket: the same reasons as the port's (agent-neutral). */
export type CliUnavailableReason = "not-signed-in" | "not-installed" | "refused-to-start" | "provider-down";

export interface CliWording {
  rateLimit: RegExp;
  /** A bad or missing key, no credentials. */
  notSignedIn: RegExp;
  /** The provider down or unreachable after the CLI's own retries. */
  providerDown: RegExp;
  /** When the limit resets, from a failure message; null when it does not say. */
  resetsAt(message: string, nowMs: number): number | null;
}

/** Claude's Decision, and when the limit resets; `unavailable` is said in the agent's words in the detail. */
export interface CliDecision extends Decision {
  /** Epoch ms the limit resets, when the CLI said. */
  resetsAt?: number;
  unavailable?: CliUnavailableReason;
}

function lastLines(text: string, n: number): string[] {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  return lines.slice(-n).map((l) => (l.length > 300 ? l.slice(0, 299) + "…" : l));
}

export function decideCliEnding(f: CliSessionFacts, wording: CliWording, nowMs: number): CliDecision {
  if (f.aborted) return { outcome: "nonzero-exit", detail: "the Stage was stopped (aborted) and its process group killed" };
  if (f.spawnError !== null) return { outcome: "nonzero-exit", detail: `the agent is unavailable: ${f.spawnError}`, unavailable: "not-installed" };
  if (!f.timedOut && !f.turnCapped && f.exitCode === 0 && f.damage.length === 0 && f.completed && f.failures.length === 0) return { outcome: "success" };

  const said = [...f.failures].reverse();
  const limit =
    said.find((m) => wording.rateLimit.test(m)) ??
    (wording.rateLimit.test(f.stderrTail)
      ? lastLine(
          f.stderrTail
            .split("\n")
            .filter((l) => wording.rateLimit.test(l))
            .join("\n"),
        )
      : undefined);
  if (limit !== undefined) {
    const resetsAt = wording.resetsAt(limit, nowMs);
    const sign: RateLimitSign = f.failures.includes(limit) ? "result-wording" : "stderr-wording";
    const when = resetsAt === null ? "" : ` (resets ${new Date(resetsAt).toISOString()})`;
    return { outcome: "rate-limited", rateLimitSign: sign, detail: `rate limited: ${lastLine(limit)}${when}`, ...(resetsAt === null ? {} : { resetsAt }) };
  }
  // Cut by the time limit while the CLI was retrying an outage: the provider's fault, as a limit is.
  const retrying = lastLines(f.stderrTail, 5).find((l) => wording.providerDown.test(l));
  if (f.timedOut && retrying !== undefined)
    return {
      outcome: "nonzero-exit",
      detail: `the agent is unavailable: still retrying when the ${Math.round(f.timeoutMs / 1000)} s time limit passed: ${retrying}`,
      unavailable: "provider-down",
    };
  if (f.timedOut) return { outcome: "timed-out", detail: `no result within ${Math.round(f.timeoutMs / 1000)} s; the agent's process group was killed` };
  if (f.turnCapped) return { outcome: "turn-capped", detail: `stopped at the turn limit after ${f.turns} turns (maxTurns ${f.maxTurns})` };
  const exit = f.signal ? `killed by ${f.signal}` : `exited ${f.exitCode}`;
  for (const [reason, re] of [
    ["not-signed-in", wording.notSignedIn],
    ["provider-down", wording.providerDown],
  ] as const) {
    const said_ =
      said.find((m) => re.test(m)) ??
      (re.test(f.stderrTail)
        ? lastLine(
            f.stderrTail
              .split("\n")
              .filter((l) => re.test(l))
              .join("\n"),
          )
        : undefined);
    if (said_ !== undefined) return { outcome: "nonzero-exit", detail: `the agent is unavailable (${exit}): ${lastLine(said_)}`, unavailable: reason };
  }
  if (f.exitCode !== 0) {
    const err = lastLine(said[0] ?? "") || lastLine(f.stderrTail);
    return { outcome: "nonzero-exit", detail: `the agent ${exit}${err ? `: ${err}` : ""}` };
  }
  if (f.damage.length > 0) return { outcome: "invalid-result", detail: `the agent's output is not a valid stream: ${f.damage.slice(0, 3).join("; ")}` };
  if (!f.completed) return { outcome: "invalid-result", detail: "the agent exited 0 without reporting the session complete (truncated stream)" };
  return { outcome: "nonzero-exit", detail: `the agent reported a failure: ${lastLine(said[0] ?? "")}` };
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/**
 * "try again at 3:19 PM" (the CLI's local time) -> the next such moment after `nowMs`; "try again
 * at Dec 2nd, 2026 12:10 AM" (Codex names the day when it is not today) -> that moment.
 */
export function nextClockTime(message: string, nowMs: number): number | null {
  const m = /\bat (?:([A-Za-z]{3})[a-z]* (\d{1,2})(?:st|nd|rd|th)?,? (\d{4}),? )?(\d{1,2}):(\d{2})\s*([AP]M)?/i.exec(message);
  if (!m) return null;
  let hours = Number(m[4]);
  const minutes = Number(m[5]);
  if (m[6]) hours = (hours % 12) + (m[6].toUpperCase() === "PM" ? 12 : 0);
  if (hours > 23 || minutes > 59) return null;
  const at = new Date(nowMs);
  if (m[1]) {
    const month = MONTHS.indexOf(m[1].toLowerCase());
    if (month < 0) return null;
    at.setFullYear(Number(m[3]), month, Number(m[2]));
    at.setHours(hours, minutes, 0, 0);
    return at.getTime();
  }
  at.setHours(hours, minutes, 0, 0);
  if (at.getTime() <= nowMs) at.setDate(at.getDate() + 1);
  return at.getTime();
}

/** "retry in 37.5s" / "retry after 3600s" / "in 120ms" -> now + that. */
export function afterDelay(message: string, nowMs: number): number | null {
  const m = /\bretry (?:in|after) ([0-9.]+)\s*(ms|s)\b/i.exec(message);
  if (!m) return null;
  const n = Number(m[1]);
  if (!Number.isFinite(n)) return null;
  return nowMs + Math.round(m[2]!.toLowerCase() === "ms" ? n : n * 1000);
}
