/**
 * Writes one assistant message as the Messages API's streaming answer (server-sent events):
 * message_start, content_block_start/delta/stop per block, message_delta, message_stop. Tool
 * inputs stream as input_json_delta fragments, as the real API sends them.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { AnswerBlock } from "./messages";

export function messageId(): string {
  return `msg_scripted_${randomBytes(8).toString("hex")}`;
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

export interface StreamedMessage {
  id: string;
  model: string;
  blocks: AnswerBlock[];
  stopReason: "end_turn" | "tool_use";
  inputTokens: number;
}

/** The events of one message, in order. `cutAfter` stops after that many events (a stream lost mid-way). */
export function sseEvents(m: StreamedMessage): string[] {
  const out: string[] = [];
  const outputTokens = m.blocks.reduce((n, b) => n + Math.ceil(JSON.stringify(b).length / 4), 0);
  out.push(
    event("message_start", {
      message: { id: m.id, type: "message", role: "assistant", model: m.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: m.inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
    }),
  );
  m.blocks.forEach((b, index) => {
    if (b.type === "text") {
      out.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const part of chunks(b.text, 64)) out.push(event("content_block_delta", { index, delta: { type: "text_delta", text: part } }));
    } else {
      out.push(event("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }));
      for (const part of chunks(JSON.stringify(b.input), 256)) out.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } }));
    }
    out.push(event("content_block_stop", { index }));
  });
  out.push(event("message_delta", { delta: { stop_reason: m.stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }));
  out.push(event("message_stop", {}));
  return out;
}

export function writeSse(res: ServerResponse, events: string[], headers: Record<string, string>): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
  for (const e of events) res.write(e);
  res.end();
}

/** The same message, not streamed (a request with `stream: false`). */
export function messageJson(m: StreamedMessage): Record<string, unknown> {
  return {
    id: m.id,
    type: "message",
    role: "assistant",
    model: m.model,
    content: m.blocks,
    stop_reason: m.stopReason,
    stop_sequence: null,
    usage: { input_tokens: m.inputTokens, output_tokens: 10 },
  };
}
