/**
 * The slice of the Anthropic Messages API request the scripted model reads, validated with zod.
 * Claude Code sends much more (system prompt, thinking, metadata, betas): passed through, unread.
 */
import { z } from "zod";

const blockSchema = z.object({ type: z.string() }).passthrough();

export const messageSchema = z
  .object({
    role: z.string(),
    content: z.union([z.string(), z.array(blockSchema)]),
  })
  .passthrough();

export const messagesRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(messageSchema),
    tools: z.array(z.object({ name: z.string() }).passthrough()).optional(),
    stream: z.boolean().optional(),
  })
  .passthrough();

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type Message = z.infer<typeof messageSchema>;

/** An assistant content block the scripted model answers with. */
export type AnswerBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export interface ToolOutcome {
  text: string;
  isError: boolean;
}

function blocksOf(message: Message): Record<string, unknown>[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content as Record<string, unknown>[]);
}

/** Every text block the user side of the conversation holds, in order. */
export function userTexts(request: MessagesRequest): string[] {
  const out: string[] = [];
  for (const m of request.messages) {
    if (m.role !== "user") continue;
    for (const b of blocksOf(m)) if (b.type === "text" && typeof b.text === "string") out.push(b.text);
  }
  return out;
}

/** tool_use id -> what its tool_result said. */
export function toolOutcomes(request: MessagesRequest): Map<string, ToolOutcome> {
  const out = new Map<string, ToolOutcome>();
  for (const m of request.messages) {
    if (m.role !== "user") continue;
    for (const b of blocksOf(m)) {
      if (b.type !== "tool_result" || typeof b.tool_use_id !== "string") continue;
      const c = b.content;
      const text = typeof c === "string" ? c : Array.isArray(c) ? c.map((x) => (typeof x?.text === "string" ? x.text : "")).join("\n") : "";
      out.set(b.tool_use_id, { text, isError: b.is_error === true });
    }
  }
  return out;
}

/** The tool calls the assistant made, message by message. */
export function assistantToolCalls(request: MessagesRequest): { id: string; name: string }[][] {
  return request.messages
    .filter((m) => m.role === "assistant")
    .map((m) => blocksOf(m).filter((b) => b.type === "tool_use" && typeof b.id === "string").map((b) => ({ id: b.id as string, name: String(b.name) })));
}
