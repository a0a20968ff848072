/**
 * A scripted model server speaking the OpenAI Responses API (POST /v1/responses, streamed as
 * server-sent events), so the real Codex CLI (`model_providers.<id>.base_url=<url>/v1`,
 * `wire_api="responses"`) works whole tickets offline with no account. Tool calls go through
 * Codex's own shell tool (`exec_command`): files are written with `base64 -d`, read with `cat -n`.
 * When the request carries a JSON schema (`codex exec --output-schema`) the answer is bare JSON.
 * Errors are the ones Codex meets in the wild: a ChatGPT plan's usage limit (429
 * `usage_limit_reached` with its reset), an API key's exhausted quota (429 `insufficient_quota`),
 * 500, 503 and a bad key (401). See docs/agents.md.
 */
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";
import { z } from "zod";
import type { BeforeTurn } from "./demo-behaviours";
import { ProviderFaultBook, providerFaultSchema } from "./provider-faults";
import type { ErrorAnswer, ProviderFault } from "./provider-faults";
import { safeJson, sendJson, sendSse, startScriptedServer } from "./scripted-http";
import type { RouteContext, ScriptedServer, ScriptedServerOptions } from "./scripted-http";
import { shellQuote } from "../../adapters/agent/stage-logs";
import { answerText, planTurn, stagePromptIn } from "./stage-script";
import type { ScriptedAction, StagePrompt } from "./stage-script";

const CALL_PREFIX = "call_scripted_";

const contentSchema = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough())]);

const inputItemSchema = z
  .object({
    type: z.string().optional(),
    role: z.string().optional(),
    content: contentSchema.optional(),
    call_id: z.string().optional(),
    name: z.string().optional(),
    output: contentSchema.optional(),
  })
  .passthrough();

const responsesRequestSchema = z
  .object({
    model: z.string().min(1),
    input: z.array(inputItemSchema),
    tools: z.array(z.object({ type: z.string(), name: z.string().optional() }).passthrough()).optional(),
    text: z
      .object({ format: z.object({ type: z.string() }).passthrough().optional() })
      .passthrough()
      .optional(),
    stream: z.boolean().optional(),
  })
  .passthrough();

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

function textOf(c: z.infer<typeof contentSchema> | undefined): string {
  if (c === undefined) return "";
  return typeof c === "string" ? c : c.map((p) => p.text ?? "").join("\n");
}

function userTexts(r: ResponsesRequest): string[] {
  return r.input.filter((i) => (i.type ?? "message") === "message" && i.role === "user").map((i) => textOf(i.content));
}

/** Our own call ids carry their step: call_scripted_<step>_<index>_<random>. */
function ownCalls(r: ResponsesRequest): { step: number; index: number; callId: string }[] {
  const out: { step: number; index: number; callId: string }[] = [];
  for (const i of r.input) {
    if (i.type !== "function_call" || !i.call_id?.startsWith(CALL_PREFIX)) continue;
    const [step, index] = i.call_id.slice(CALL_PREFIX.length).split("_").map(Number);
    if (Number.isInteger(step) && Number.isInteger(index)) out.push({ step: step!, index: index!, callId: i.call_id });
  }
  return out;
}

function stepOfResponses(r: ResponsesRequest): number {
  return ownCalls(r).reduce((max, c) => Math.max(max, c.step + 1), 0);
}

function firstReads(r: ResponsesRequest): { text: string; isError: boolean }[] {
  const outputs = new Map<string, string>();
  for (const i of r.input) if (i.type === "function_call_output" && i.call_id) outputs.set(i.call_id, textOf(i.output));
  return ownCalls(r)
    .filter((c) => c.step === 0)
    .sort((a, b) => a.index - b.index)
    .map((c) => {
      const text = outputs.get(c.callId) ?? "";
      return { text, isError: /Process exited with code [1-9]/.test(text) };
    });
}

/** One action as a command for Codex's shell tool. Contents travel base64-encoded: nothing in them reaches the shell. */
function shellFor(action: ScriptedAction): string {
  switch (action.kind) {
    case "shell":
      return action.command;
    case "read":
      return `cat -n -- ${shellQuote(action.path)}`;
    case "write": {
      const dir = dirname(action.path);
      const mk = dir === "." ? "" : `mkdir -p -- ${shellQuote(dir)} && `;
      return `${mk}printf '%s' ${Buffer.from(action.content, "utf8").toString("base64")} | base64 -d > ${shellQuote(action.path)}`;
    }
  }
}

function frame(event: Record<string, unknown>): string {
  return `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

interface OutputItem {
  item: Record<string, unknown>;
  delta?: string;
}

/** The SSE events of one response: created, each output item added/(delta)/done, completed. */
function responseEvents(id: string, model: string, items: OutputItem[], inputTokens: number): string[] {
  const events: string[] = [frame({ type: "response.created", response: { id, object: "response", model, status: "in_progress", output: [] } })];
  items.forEach(({ item, delta }, output_index) => {
    const empty = item.type === "message" ? { ...item, status: "in_progress", content: [] } : { ...item, status: "in_progress", arguments: "" };
    events.push(frame({ type: "response.output_item.added", output_index, item: empty }));
    if (delta !== undefined) events.push(frame({ type: "response.output_text.delta", output_index, content_index: 0, item_id: item.id, delta }));
    events.push(frame({ type: "response.output_item.done", output_index, item }));
  });
  const outputTokens = items.reduce((n, i) => n + Math.ceil(JSON.stringify(i.item).length / 4), 0);
  events.push(
    frame({
      type: "response.completed",
      response: {
        id,
        object: "response",
        model,
        status: "completed",
        output: items.map((i) => i.item),
        usage: {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + outputTokens,
        },
      },
    }),
  );
  return events;
}

function hex(): string {
  return randomBytes(6).toString("hex");
}

function messageItem(text: string): OutputItem {
  const id = `msg_scripted_${hex()}`;
  return { item: { type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }, delta: text };
}

function turnItems(r: ResponsesRequest, sp: StagePrompt | null): OutputItem[] {
  if (!sp) return [messageItem("OK.")];
  const step = stepOfResponses(r);
  const turn = planTurn(sp, step, firstReads(r));
  if (turn.kind === "refuse") return [messageItem(turn.text)];
  if (turn.kind === "answer") {
    const schemaGiven = r.text?.format?.type === "json_schema";
    return [messageItem(schemaGiven ? JSON.stringify(turn.value) : answerText(sp, turn))];
  }
  // Codex's own models use "code mode" (one JavaScript `exec` tool) instead of function tools;
  // the scripted model speaks only the classic `exec_command` one (agent-wiring.ts picks a model
  // Codex has no metadata for, so it falls back to it).
  if (!(r.tools ?? []).some((t) => t.name === "exec_command"))
    return [
      messageItem(
        "The scripted model needs Codex's exec_command tool, and this request offers none (code mode?). Run Codex with a model it has no metadata for, e.g. `-m scripted`.",
      ),
    ];
  const calls = turn.actions.map((a, index): OutputItem => {
    const args = { cmd: shellFor(a) };
    return {
      item: {
        type: "function_call",
        id: `fc_scripted_${hex()}`,
        call_id: `${CALL_PREFIX}${step}_${index}_${hex()}`,
        name: "exec_command",
        arguments: JSON.stringify(args),
        status: "completed",
      },
    };
  });
  return [messageItem(turn.text), ...calls];
}

/** The error Codex meets for each fault, as the real service answers it. */
function openAiErrorAnswer(fault: ProviderFault, nowMs: number): ErrorAnswer | null {
  const resetsAt = Math.floor(nowMs / 1000) + fault.resetInSeconds;
  switch (fault.answer) {
    case "rate-limit":
      return {
        status: 429,
        headers: {
          "x-codex-primary-used-percent": "100",
          "x-codex-primary-window-minutes": "300",
          "x-codex-primary-reset-after-seconds": String(fault.resetInSeconds),
          "x-codex-primary-reset-at": String(resetsAt),
          "x-codex-secondary-used-percent": "41",
          "x-codex-secondary-window-minutes": "10080",
        },
        body: {
          error: {
            type: "usage_limit_reached",
            message: "The usage limit has been reached",
            plan_type: "plus",
            resets_at: resetsAt,
            resets_in_seconds: fault.resetInSeconds,
          },
        },
      };
    case "quota":
      return {
        status: 429,
        headers: { "x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499" },
        body: {
          error: {
            type: "insufficient_quota",
            code: "insufficient_quota",
            param: null,
            message:
              "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
          },
        },
      };
    case "server-error":
      return {
        status: 500,
        headers: {},
        body: { error: { type: "server_error", code: null, param: null, message: "The server had an error while processing your request. Sorry about that!" } },
      };
    case "overloaded":
      return {
        status: 503,
        headers: {},
        body: { error: { type: "server_error", code: "server_is_overloaded", param: null, message: "The server is overloaded or not ready yet." } },
      };
    case "unauthorized":
      return {
        status: 401,
        headers: {},
        body: {
          error: {
            type: "invalid_request_error",
            code: "invalid_api_key",
            param: null,
            message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
          },
        },
      };
    default:
      return null;
  }
}

export async function startOpenAiResponsesServer(
  options: ScriptedServerOptions & { now?: () => number } & { beforeTurn?: BeforeTurn } = {},
): Promise<ScriptedServer> {
  const now = options.now ?? Date.now;
  const faults = new ProviderFaultBook();
  const route = async (ctx: RouteContext): Promise<boolean> => {
    if (!(ctx.path === "/v1/responses" || ctx.path === "/responses") || ctx.req.method !== "POST") return false;
    const parsed = responsesRequestSchema.safeParse(safeJson(ctx.body));
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      sendJson(ctx.res, 400, {
        error: {
          type: "invalid_request_error",
          code: null,
          param: first?.path.join(".") ?? null,
          message: `${first?.path.join(".") || "body"}: ${first?.message ?? "invalid"}`,
        },
      });
      return true;
    }
    const request = parsed.data;
    const sp = stagePromptIn(userTexts(request));
    const step = stepOfResponses(request);
    const scripted = sp && options.beforeTurn ? await options.beforeTurn(sp, step) : null;
    const fault = faults.take({ ticket: sp?.ticket ?? null, stage: sp?.stage ?? null, step }) ?? (scripted ? providerFaultSchema.parse(scripted) : null);
    const session = ctx.req.headers["session-id"];
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
    const error = fault ? openAiErrorAnswer(fault, now()) : null;
    if (error) {
      sendJson(ctx.res, error.status, error.body, error.headers);
      return true;
    }
    const events = responseEvents(`resp_scripted_${hex()}`, request.model, turnItems(request, sp), Math.ceil(ctx.body.length / 4));
    if (fault?.answer === "hold") {
      // Half an answer, then nothing: the session is stuck mid-stream until killed or released.
      sendSse(ctx.res, events.slice(0, 2), {}, true);
      ctx.hold(ctx.res);
      return true;
    }
    sendSse(ctx.res, events, { "x-request-id": `req_scripted_${hex()}` });
    return true;
  };
  return startScriptedServer(route, faults, options);
}
