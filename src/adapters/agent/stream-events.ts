/**
 * Claude Code's `--output-format stream-json --verbose` events, validated with zod.
 *
 * One JSON object per line. The shapes follow the documented headless / Agent SDK message types:
 * `system` (subtype `init` first), `assistant` and `user` (Anthropic API messages), `result` (last),
 * and `rate_limit_event`. Only the fields we act on are required; everything else passes through,
 * because the CLI adds fields between versions and a new field must never fail a Stage.
 */
import { z } from "zod";

const systemEventSchema = z
  .object({
    type: z.literal("system"),
    subtype: z.string(),
    session_id: z.string().optional(),
    model: z.string().optional(),
    cwd: z.string().optional(),
  })
  .passthrough();

/** `system/api_retry`: the CLI is retrying a failed API call (error_status 429, 529, 500, or null for a lost connection). */
export const apiRetrySchema = systemEventSchema.extend({
  subtype: z.literal("api_retry"),
  attempt: z.number().int().optional(),
  error_status: z.number().int().nullable().optional(),
  error: z.string().optional(),
});

const systemInitSchema = systemEventSchema.extend({
  subtype: z.literal("init"),
  session_id: z.string(),
  model: z.string(),
});

/** A content block: only `type` is required here; each kind is checked where it is used. */
const contentBlockSchema = z.object({ type: z.string() }).passthrough();

export const textBlockSchema = z.object({ type: z.literal("text"), text: z.string() }).passthrough();
export const toolUseBlockSchema = z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }).passthrough();
export const toolResultBlockSchema = z
  .object({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(contentBlockSchema)]).optional(),
    is_error: z.boolean().optional(),
  })
  .passthrough();

const assistantEventSchema = z
  .object({
    type: z.literal("assistant"),
    message: z.object({ id: z.string().optional(), content: z.array(contentBlockSchema) }).passthrough(),
    session_id: z.string().optional(),
    parent_tool_use_id: z.string().nullable().optional(),
    /** Set by the CLI when the API call behind this message failed (`rate_limit`, `authentication_failed`, `server_error`, `overloaded`). */
    error: z.string().optional(),
  })
  .passthrough();

const userEventSchema = z
  .object({
    type: z.literal("user"),
    // The array first: nearly every user event is a tool result (an array), and a failed branch
    // costs zod an issue per line (20,000 lines: ~105 -> ~70 ms of CPU in a plain node).
    message: z.object({ content: z.union([z.array(contentBlockSchema), z.string()]) }).passthrough(),
    session_id: z.string().optional(),
    parent_tool_use_id: z.string().nullable().optional(),
  })
  .passthrough();

const resultEventSchema = z
  .object({
    type: z.literal("result"),
    // The CLI documents success, error_max_turns, error_during_execution, error_max_budget_usd and
    // error_max_structured_output_retries; any other is accepted (as a failure), so a new one is never a parse error.
    subtype: z.string().min(1),
    is_error: z.boolean(),
    num_turns: z.number().int().nonnegative(),
    result: z.string().optional(),
    structured_output: z.unknown().optional(),
    /** The HTTP status of the API error that ended the session, e.g. 429. */
    api_error_status: z.number().int().nullable().optional(),
    duration_ms: z.number().nonnegative().optional(),
    session_id: z.string().optional(),
    total_cost_usd: z.number().optional(),
    errors: z.array(z.unknown()).optional(),
    /** Why the session ended, e.g. `completed` or `api_error`. */
    terminal_reason: z.string().optional(),
    /** The CLI's own name for the API failure, e.g. `usage_limit_reached`, `connection_failed`. */
    api_error: z.string().optional(),
    /** Tool calls the permission rules refused. */
    permission_denials: z.array(z.object({ tool_name: z.string(), tool_input: z.unknown().optional() }).passthrough()).optional(),
  })
  .passthrough();

const rateLimitEventSchema = z
  .object({
    type: z.literal("rate_limit_event"),
    rate_limit_info: z
      .object({
        status: z.enum(["allowed", "allowed_warning", "rejected"]),
        resetsAt: z.number().optional(),
        rateLimitType: z.string().optional(),
      })
      .passthrough(),
    session_id: z.string().optional(),
  })
  .passthrough();

export type SystemEvent = z.infer<typeof systemEventSchema>;
export type AssistantEvent = z.infer<typeof assistantEventSchema>;
export type UserEvent = z.infer<typeof userEventSchema>;
export type ResultEvent = z.infer<typeof resultEventSchema>;
export type RateLimitEvent = z.infer<typeof rateLimitEventSchema>;

/** One stdout line, classified. `damage` means the stream itself is broken; `ignored` is logged and skipped. */
export type ParsedLine =
  | { kind: "system"; event: SystemEvent }
  | { kind: "assistant"; event: AssistantEvent }
  | { kind: "user"; event: UserEvent }
  | { kind: "result"; event: ResultEvent }
  | { kind: "rate-limit"; event: RateLimitEvent }
  | { kind: "ignored"; reason: string; json: unknown }
  | { kind: "damage"; reason: string };

const envelopeSchema = z.object({ type: z.string() }).passthrough();

/** Names the first zod issue briefly: `rate_limit_info.status: Invalid enum value`. */
function issueText(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid";
  const where = first.path.length > 0 ? first.path.join(".") + ": " : "";
  return where + first.message;
}

/**
 * Classifies one line of text (already decoded, without its newline).
 * An unknown event type, or a known one whose optional shape drifted, is ignored with a reason;
 * a line that is not a JSON object, or a `result` we cannot read, is damage.
 */
export function parseStreamLine(line: string, lineNo: number): ParsedLine {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    const preview = line.length > 60 ? line.slice(0, 60) + "…" : line;
    return { kind: "damage", reason: `line ${lineNo} is not JSON: ${JSON.stringify(preview)}` };
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return { kind: "damage", reason: `line ${lineNo} is not an event object (no "type")` };
  const type = envelope.data.type;
  switch (type) {
    case "system": {
      const init = systemInitSchema.safeParse(json);
      if (init.success) return { kind: "system", event: init.data };
      const parsed = systemEventSchema.safeParse(json);
      if (parsed.success && parsed.data.subtype !== "init") return { kind: "system", event: parsed.data };
      return { kind: "ignored", reason: `line ${lineNo}: system event unreadable (${issueText((init.error ?? parsed.error)!)})`, json };
    }
    case "assistant": {
      const parsed = assistantEventSchema.safeParse(json);
      if (parsed.success) return { kind: "assistant", event: parsed.data };
      return { kind: "ignored", reason: `line ${lineNo}: assistant event unreadable (${issueText(parsed.error)})`, json };
    }
    case "user": {
      const parsed = userEventSchema.safeParse(json);
      if (parsed.success) return { kind: "user", event: parsed.data };
      return { kind: "ignored", reason: `line ${lineNo}: user event unreadable (${issueText(parsed.error)})`, json };
    }
    case "result": {
      const parsed = resultEventSchema.safeParse(json);
      if (parsed.success) return { kind: "result", event: parsed.data };
      return { kind: "damage", reason: `line ${lineNo}: result event unreadable (${issueText(parsed.error)})` };
    }
    case "rate_limit_event": {
      const parsed = rateLimitEventSchema.safeParse(json);
      if (parsed.success) return { kind: "rate-limit", event: parsed.data };
      return { kind: "ignored", reason: `line ${lineNo}: rate_limit_event unreadable (${issueText(parsed.error)})`, json };
    }
    default:
      return { kind: "ignored", reason: `line ${lineNo}: unknown event type ${JSON.stringify(type.slice(0, 40))}`, json };
  }
}
