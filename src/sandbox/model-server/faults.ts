/**
 * Scripted faults of the model server: rate limits with the real headers (`retry-after`, the API
 * key's `anthropic-ratelimit-*`, the subscription's `anthropic-ratelimit-unified-*`), overload (529),
 * server errors (500), a connection dropped before any answer, and a stream held open mid-answer.
 * Each rule matches a Stage request by ticket, Stage and step, and fires `times` times (0: always).
 */
import { z } from "zod";
import { STAGES } from "../demo-agent/demo-block";

export const LIMIT_CLAIMS = ["five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet"] as const;

export const faultSchema = z
  .object({
    ticket: z.number().int().positive().optional(),
    stage: z.enum(STAGES).optional(),
    /** The scripted step (how many of its own tool-calling messages the conversation holds). */
    step: z.number().int().min(0).optional(),
    /** How many matching requests it answers; 0 = every one. */
    times: z.number().int().min(0).default(1),
    answer: z.enum(["rate-limit", "overloaded", "server-error", "drop", "hold"]),
    /** rate-limit: which subscription limit (anthropic-ratelimit-unified-representative-claim). */
    limit: z.enum(LIMIT_CLAIMS).default("five_hour"),
    /** rate-limit: when it resets, from now. */
    resetInSeconds: z.number().int().positive().max(30 * 24 * 3600).default(3600),
    /** rate-limit: send the subscription's `anthropic-ratelimit-unified-*` headers (false: an API key's limit, which the CLI retries). */
    unified: z.boolean().default(true),
  })
  .strict();

export type Fault = z.infer<typeof faultSchema>;
export type FaultInput = z.input<typeof faultSchema>;

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function rateLimitAnswer(fault: Pick<Fault, "limit" | "resetInSeconds" | "unified">, nowMs: number): ErrorAnswer {
  const reset = Math.floor(nowMs / 1000) + fault.resetInSeconds;
  return {
    status: 429,
    headers: {
      "retry-after": String(fault.resetInSeconds),
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "0",
      "anthropic-ratelimit-requests-reset": rfc3339(reset),
      "anthropic-ratelimit-input-tokens-limit": "30000",
      "anthropic-ratelimit-input-tokens-remaining": "0",
      "anthropic-ratelimit-input-tokens-reset": rfc3339(reset),
      "anthropic-ratelimit-output-tokens-limit": "8000",
      "anthropic-ratelimit-output-tokens-remaining": "0",
      "anthropic-ratelimit-output-tokens-reset": rfc3339(reset),
      ...(fault.unified ? unifiedHeaders(fault.limit, reset) : {}),
    },
    body: { type: "error", error: { type: "rate_limit_error", message: "This request would exceed your account's rate limit. Please try again later." } },
  };
}

function unifiedHeaders(limit: Fault["limit"], reset: number): Record<string, string> {
  const window = limit === "five_hour" ? "5h" : "7d";
  return {
      "anthropic-ratelimit-unified-status": "rejected",
      "anthropic-ratelimit-unified-reset": String(reset),
      "anthropic-ratelimit-unified-representative-claim": limit,
      [`anthropic-ratelimit-unified-${window}-status`]: "rejected",
      [`anthropic-ratelimit-unified-${window}-reset`]: String(reset),
      [`anthropic-ratelimit-unified-${window}-utilization`]: "1.0",
      "anthropic-ratelimit-unified-fallback-percentage": "0.5",
      "anthropic-ratelimit-unified-overage-status": "rejected",
      "anthropic-ratelimit-unified-overage-disabled-reason": "out_of_credits",
  };
}

export function errorAnswer(fault: Fault, nowMs: number): ErrorAnswer | null {
  switch (fault.answer) {
    case "rate-limit":
      return rateLimitAnswer(fault, nowMs);
    case "overloaded":
      return { status: 529, headers: {}, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };
    case "server-error":
      return { status: 500, headers: {}, body: { type: "error", error: { type: "api_error", message: "Internal server error" } } };
    default:
      return null;
  }
}

export interface FaultTarget {
  ticket: number | null;
  stage: string | null;
  step: number;
}

/** The rules, in the order added; the first matching one with uses left fires. */
export class FaultBook {
  private rules: { fault: Fault; used: number }[] = [];

  /** Throws a ZodError naming the bad field. */
  add(input: FaultInput): void {
    this.rules.push({ fault: faultSchema.parse(input), used: 0 });
  }

  clear(): void {
    this.rules = [];
  }

  take(target: FaultTarget): Fault | null {
    for (const rule of this.rules) {
      const f = rule.fault;
      if (f.times !== 0 && rule.used >= f.times) continue;
      if (f.ticket !== undefined && f.ticket !== target.ticket) continue;
      if (f.stage !== undefined && f.stage !== target.stage) continue;
      if (f.step !== undefined && f.step !== target.step) continue;
      rule.used += 1;
      return f;
    }
    return null;
  }
}
