/**
 * A scripted model server speaking the Anthropic Messages API (POST /v1/messages, streamed as
 * server-sent events: message_start, content_block_start/delta/stop, message_delta, message_stop),
 * so the real Claude Code (`ANTHROPIC_BASE_URL=<url>`) works whole tickets offline with no account.
 * Tool calls are Claude Code's own tools (Write, Read, Bash); with `--json-schema` the CLI offers a
 * StructuredOutput tool and the answer goes through it. Errors carry the real headers: `retry-after`,
 * an API key's `anthropic-ratelimit-*`, a subscriber's `anthropic-ratelimit-unified-*` (what Claude
 * Code turns into "You've hit your 5-hour limit · resets 3:40pm"), 529 overloaded, 500, a bad key
 * (401). Learned from what Claude Code 2.1.332 sends (recordDir). See docs/agents.md.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import type { BeforeTurn } from "./demo-behaviours";
import { ProviderFaultBook, providerFaultSchema } from "./provider-faults";
import type { ErrorAnswer, ProviderFault } from "./provider-faults";
import { safeJson, sendJson, sendSse, startScriptedServer } from "./scripted-http";
import type { RouteContext, ScriptedServer, ScriptedServerOptions } from "./scripted-http";
import { answerText, planTurn, stagePromptIn } from "./stage-script";
import type { StagePrompt } from "./stage-script";

const TOOL_PREFIX = "toolu_scripted_";

const blockSchema = z.object({ type: z.string() }).passthrough();
const messageSchema = z.object({ role: z.string(), content: z.union([z.string(), z.array(blockSchema)]) }).passthrough();

const messagesRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(messageSchema),
    tools: z.array(z.object({ name: z.string() }).passthrough()).optional(),
    stream: z.boolean().optional(),
  })
  .passthrough();

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

type Block = Record<string, unknown>;
type AnswerBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

function blocksOf(m: z.infer<typeof messageSchema>): Block[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Block[]);
}

function userTexts(r: MessagesRequest): string[] {
  return r.messages
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      blocksOf(m)
        .filter((b) => b.type === "text" && typeof b.text === "string")
        .map((b) => b.text as string),
    );
}

/** Our own tool_use ids carry their step: toolu_scripted_<step>_<index>_<random>. */
function ownCalls(r: MessagesRequest): { step: number; index: number; id: string; name: string }[] {
  const out: { step: number; index: number; id: string; name: string }[] = [];
  for (const m of r.messages) {
    if (m.role !== "assistant") continue;
    for (const b of blocksOf(m)) {
      if (b.type !== "tool_use" || typeof b.id !== "string" || !b.id.startsWith(TOOL_PREFIX)) continue;
      const [step, index] = b.id.slice(TOOL_PREFIX.length).split("_").map(Number);
      if (Number.isInteger(step) && Number.isInteger(index)) out.push({ step: step!, index: index!, id: b.id, name: String(b.name) });
    }
  }
  return out;
}

function stepOfMessages(r: MessagesRequest): number {
  return ownCalls(r).reduce((max, c) => Math.max(max, c.step + 1), 0);
}

function toolResults(r: MessagesRequest): Map<string, { text: string; isError: boolean }> {
  const out = new Map<string, { text: string; isError: boolean }>();
  for (const m of r.messages) {
    if (m.role !== "user") continue;
    for (const b of blocksOf(m)) {
      if (b.type !== "tool_result" || typeof b.tool_use_id !== "string") continue;
      const c = b.content;
      const text = typeof c === "string" ? c : Array.isArray(c) ? c.map((x: { text?: unknown }) => (typeof x?.text === "string" ? x.text : "")).join("\n") : "";
      out.set(b.tool_use_id, { text, isError: b.is_error === true });
    }
  }
  return out;
}

function firstReads(r: MessagesRequest): { text: string; isError: boolean }[] {
  const results = toolResults(r);
  return ownCalls(r)
    .filter((c) => c.step === 0 && c.name === "Read")
    .sort((a, b) => a.index - b.index)
    .map((c) => results.get(c.id) ?? { text: "", isError: true });
}

/** The working directory Claude Code names in its environment context, for its tools' absolute paths. */
function cwdOf(body: string): string | null {
  const m = /Primary working directory: ([^\s\\]+)/.exec(body);
  return m ? m[1]! : null;
}

function hex(): string {
  return randomBytes(6).toString("hex");
}

function turnBlocks(r: MessagesRequest, sp: StagePrompt | null, cwd: string | null): AnswerBlock[] {
  if (!sp) return [{ type: "text", text: "OK." }];
  // The answer was given: the session only needs a last word.
  if (ownCalls(r).some((c) => c.name === "StructuredOutput")) return [{ type: "text", text: "Done." }];
  const step = stepOfMessages(r);
  const turn = planTurn(sp, step, firstReads(r));
  if (turn.kind === "refuse") return [{ type: "text", text: turn.text }];
  if (turn.kind === "answer") {
    if (!(r.tools ?? []).some((t) => t.name === "StructuredOutput")) return [{ type: "text", text: answerText(sp, turn) }];
    return [
      { type: "text", text: turn.text },
      { type: "tool_use", id: `${TOOL_PREFIX}${step}_0_${hex()}`, name: "StructuredOutput", input: turn.value as Record<string, unknown> },
    ];
  }
  const at = (p: string) => (cwd ? join(cwd, p) : p);
  const calls = turn.actions.map((a, index): AnswerBlock => {
    const id = `${TOOL_PREFIX}${step}_${index}_${hex()}`;
    if (a.kind === "write") return { type: "tool_use", id, name: "Write", input: { file_path: at(a.path), content: a.content } };
    if (a.kind === "read") return { type: "tool_use", id, name: "Read", input: { file_path: at(a.path) } };
    return { type: "tool_use", id, name: "Bash", input: { command: a.command, description: a.description } };
  });
  return [{ type: "text", text: turn.text }, ...calls];
}

function frame(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

/** The SSE events of one message; tool inputs stream as input_json_delta fragments, as the API sends them. */
function messageEvents(id: string, model: string, blocks: AnswerBlock[], inputTokens: number): string[] {
  const out = [
    frame("message_start", {
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }),
  ];
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      out.push(frame("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const text of pieces(b.text, 64)) out.push(frame("content_block_delta", { index, delta: { type: "text_delta", text } }));
    } else {
      out.push(frame("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }));
      for (const partial_json of pieces(JSON.stringify(b.input), 256))
        out.push(frame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }));
    }
    out.push(frame("content_block_stop", { index }));
  });
  const outputTokens = blocks.reduce((n, b) => n + Math.ceil(JSON.stringify(b).length / 4), 0);
  out.push(
    frame("message_delta", {
      delta: { stop_reason: blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
  );
  out.push(frame("message_stop", {}));
  return out;
}

function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function unifiedHeaders(limit: ProviderFault["limit"], reset: number): Record<string, string> {
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

function apiError(type: string, message: string): unknown {
  return { type: "error", error: { type, message } };
}

/** The answer Claude Code meets for each fault, as the real API answers it. */
function anthropicErrorAnswer(fault: ProviderFault, nowMs: number): ErrorAnswer | null {
  const reset = Math.floor(nowMs / 1000) + fault.resetInSeconds;
  switch (fault.answer) {
    case "rate-limit":
    case "quota":
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
        body: apiError("rate_limit_error", "This request would exceed your account's rate limit. Please try again later."),
      };
    case "overloaded":
      return { status: 529, headers: {}, body: apiError("overloaded_error", "Overloaded") };
    case "server-error":
      return { status: 500, headers: {}, body: apiError("api_error", "Internal server error") };
    case "unauthorized":
      return { status: 401, headers: {}, body: apiError("authentication_error", "invalid x-api-key") };
    default:
      return null;
  }
}

export async function startAnthropicServer(options: ScriptedServerOptions & { now?: () => number; beforeTurn?: BeforeTurn } = {}): Promise<ScriptedServer> {
  const now = options.now ?? Date.now;
  const faults = new ProviderFaultBook();
  const route = async (ctx: RouteContext): Promise<boolean> => {
    if (ctx.path === "/api/hello") {
      sendJson(ctx.res, 200, { message: "hello" });
      return true;
    }
    if (ctx.path === "/v1/messages/count_tokens" && ctx.req.method === "POST") {
      sendJson(ctx.res, 200, { input_tokens: Math.ceil(ctx.body.length / 4) });
      return true;
    }
    if (ctx.path !== "/v1/messages" || ctx.req.method !== "POST") return false;
    const parsed = messagesRequestSchema.safeParse(safeJson(ctx.body));
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      sendJson(ctx.res, 400, apiError("invalid_request_error", `${first?.path.join(".") || "body"}: ${first?.message ?? "invalid"}`));
      return true;
    }
    const request = parsed.data;
    const sp = stagePromptIn(userTexts(request));
    const step = stepOfMessages(request);
    const scripted = sp && options.beforeTurn ? await options.beforeTurn(sp, step) : null;
    const fault = faults.take({ ticket: sp?.ticket ?? null, stage: sp?.stage ?? null, step }) ?? (scripted ? providerFaultSchema.parse(scripted) : null);
    const session = ctx.req.headers["x-claude-code-session-id"];
    ctx.record({
      session: typeof session === "string" ? session : null,
      ticket: sp?.ticket ?? null,
      stage: sp?.stage ?? null,
      step,
      answer: fault ? fault.answer : sp ? "message" : "utility",
    });
    if (fault?.answer === "drop") {
      ctx.req.socket.destroy();
      return true;
    }
    const error = fault ? anthropicErrorAnswer(fault, now()) : null;
    if (error) {
      sendJson(ctx.res, error.status, error.body, { "request-id": `req_scripted_${hex()}`, ...error.headers });
      return true;
    }
    const blocks = turnBlocks(request, sp, cwdOf(ctx.body));
    const id = `msg_scripted_${hex()}`;
    const headers = {
      "request-id": `req_scripted_${hex()}`,
      "anthropic-ratelimit-unified-status": "allowed",
      "anthropic-ratelimit-unified-reset": String(Math.floor(now() / 1000) + 5 * 3600),
    };
    if (request.stream === false) {
      sendJson(
        ctx.res,
        200,
        {
          id,
          type: "message",
          role: "assistant",
          model: request.model,
          content: blocks,
          stop_reason: blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
        headers,
      );
      return true;
    }
    const events = messageEvents(id, request.model, blocks, Math.ceil(ctx.body.length / 4));
    if (fault?.answer === "hold") {
      // Half an answer, then nothing: the session is stuck mid-stream until killed or released.
      sendSse(ctx.res, events.slice(0, 3), headers, true);
      ctx.hold(ctx.res);
      return true;
    }
    sendSse(ctx.res, events, headers);
    return true;
  };
  return startScriptedServer(route, faults, options);
}
