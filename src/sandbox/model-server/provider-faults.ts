/**
 * Scripted faults of the OpenAI and Gemini model servers, matched per Stage request by ticket,
 * Stage and step, each firing `times` times (0: always). What each answer looks like on the wire
 * is the provider's own (openai-responses.ts, gemini-api.ts): the bodies and headers the real
 * services send for a usage limit, an exhausted quota, an outage, a bad key.
 */
import { z } from "zod";
import { STAGES } from "../demo-agent/demo-block";

const PROVIDER_FAULT_ANSWERS = ["rate-limit", "quota", "server-error", "overloaded", "unauthorized", "drop", "hold"] as const;
export const providerFaultSchema = z
  .object({
    ticket: z.number().int().positive().optional(),
    stage: z.enum(STAGES).optional(),
    /** The scripted step (how many of its own tool-calling turns the conversation holds). */
    step: z.number().int().min(0).optional(),
    /** How many matching requests it answers; 0 = every one. */
    times: z.number().int().min(0).default(1),
    answer: z.enum(PROVIDER_FAULT_ANSWERS),
    /** rate-limit / quota: when it resets, from now. */
    resetInSeconds: z
      .number()
      .int()
      .positive()
      .max(30 * 24 * 3600)
      .default(3600),
    /** Anthropic rate-limit: which subscription limit (`anthropic-ratelimit-unified-representative-claim`). */
    limit: z.enum(["five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet"]).default("five_hour"),
    /** Anthropic rate-limit: send the subscription's `anthropic-ratelimit-unified-*` headers (false: an API key's limit, which Claude Code retries). */
    unified: z.boolean().default(true),
  })
  .strict();

export type ProviderFault = z.infer<typeof providerFaultSchema>;
export type ProviderFaultInput = z.input<typeof providerFaultSchema>;

export interface FaultTarget {
  ticket: number | null;
  stage: string | null;
  step: number;
}

/** The rules, in the order added; the first matching one with uses left fires. */
export class ProviderFaultBook {
  private rules: { fault: ProviderFault; used: number }[] = [];

  add(input: ProviderFaultInput): ProviderFault {
    const fault = providerFaultSchema.parse(input);
    this.rules.push({ fault, used: 0 });
    return fault;
  }

  clear(): void {
    this.rules = [];
  }

  take(target: FaultTarget): ProviderFault | null {
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

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}
