/**
 * A scripted model server speaking the Gemini API (POST /v1beta/models/<model>:streamGenerateContent
 * ?alt=sse, and :generateContent for the CLI's own utility calls), so the real Gemini CLI
 * (GOOGLE_GEMINI_BASE_URL=<url>) works whole tickets offline with no account. Tool calls use the
 * CLI's own tools: write_file, read_file, run_shell_command. Gemini CLI has no structured-output
 * flag, so the answer is the fenced block the prompt asks for (core/run/fenced-answer.ts).
 * Errors are the Gemini API's own google.rpc shapes: a quota with a RetryInfo reset (429
 * RESOURCE_EXHAUSTED), a daily quota (QuotaFailure PerDay), 500 INTERNAL, 503 UNAVAILABLE and a
 * bad key (400 API_KEY_INVALID). See docs/agents.md.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { BeforeTurn } from "./demo-behaviours";
import { ProviderFaultBook, providerFaultSchema } from "./provider-faults";
import type { ErrorAnswer, ProviderFault } from "./provider-faults";
import { safeJson, sendJson, sendSse, startScriptedServer } from "./scripted-http";
import type { RouteContext, ScriptedServer, ScriptedServerOptions } from "./scripted-http";
import { answerText, planTurn, stagePromptIn } from "./stage-script";
import type { ScriptedAction, StagePrompt } from "./stage-script";

const partSchema = z
  .object({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    functionCall: z
      .object({ name: z.string(), args: z.record(z.unknown()).optional() })
      .passthrough()
      .optional(),
    functionResponse: z
      .object({ name: z.string(), response: z.record(z.unknown()).optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();

const generateRequestSchema = z
  .object({
    contents: z.array(z.object({ role: z.string().optional(), parts: z.array(partSchema) }).passthrough()),
    tools: z.array(z.object({ functionDeclarations: z.array(z.object({ name: z.string() }).passthrough()).optional() }).passthrough()).optional(),
  })
  .passthrough();

export type GenerateRequest = z.infer<typeof generateRequestSchema>;
type Part = z.infer<typeof partSchema>;

const MODEL_PATH = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

function userTexts(r: GenerateRequest): string[] {
  return r.contents.filter((c) => c.role === "user").flatMap((c) => c.parts.map((p) => p.text ?? "").filter((t) => t.length > 0));
}

function modelCallTurns(r: GenerateRequest): Part[][] {
  return r.contents.filter((c) => c.role === "model" && c.parts.some((p) => p.functionCall)).map((c) => c.parts.filter((p) => p.functionCall));
}

/** The CLI keeps no id of ours, so a step is a model turn that called tools: this conversation holds only the Stage's session. */
function stepOfGemini(r: GenerateRequest): number {
  return modelCallTurns(r).length;
}

function responseText(p: Part): { text: string; isError: boolean } {
  const response = p.functionResponse?.response ?? {};
  if (typeof response.error === "string") return { text: response.error, isError: true };
  return { text: typeof response.output === "string" ? response.output : JSON.stringify(response), isError: false };
}

/** What the first tool-calling turn's reads returned, in order: the function responses that follow it. */
function firstReads(r: GenerateRequest): { text: string; isError: boolean }[] {
  const first = r.contents.findIndex((c) => c.role === "model" && c.parts.some((p) => p.functionCall));
  if (first === -1) return [];
  const next = r.contents[first + 1];
  return (next?.parts ?? []).filter((p) => p.functionResponse?.name === "read_file").map(responseText);
}

function geminiCallFor(action: ScriptedAction, cwd: string | null): { name: string; args: Record<string, unknown> } {
  const abs = (p: string): string => (cwd ? `${cwd}/${p}` : p);
  switch (action.kind) {
    case "write":
      return { name: "write_file", args: { file_path: abs(action.path), content: action.content } };
    case "read":
      return { name: "read_file", args: { file_path: abs(action.path) } };
    case "shell":
      return { name: "run_shell_command", args: { command: action.command, description: action.description } };
  }
}

/** The workspace directory the CLI names in its session context. */
function cwdOf(r: GenerateRequest): string | null {
  for (const t of userTexts(r)) {
    const m = /Workspace Directories:\*\*\n\s*- (\S[^\n]*)/.exec(t) ?? /I'm currently working in the directory: (\S[^\n]*)/.exec(t);
    if (m) return m[1]!.trim();
  }
  return null;
}

function turnParts(r: GenerateRequest, sp: StagePrompt | null): Part[] {
  if (!sp) return [{ text: "OK." }];
  const turn = planTurn(sp, stepOfGemini(r), firstReads(r));
  if (turn.kind === "refuse") return [{ text: turn.text }];
  if (turn.kind === "answer") return [{ text: answerText(sp, turn) }];
  const cwd = cwdOf(r);
  return [{ text: turn.text }, ...turn.actions.map((a) => ({ functionCall: geminiCallFor(a, cwd) }))];
}

function chunk(parts: Part[], model: string, promptTokens: number, final: boolean): Record<string, unknown> {
  const candidatesTokens = parts.reduce((n, p) => n + Math.ceil(JSON.stringify(p).length / 4), 0);
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(final ? { finishReason: "STOP" } : {}) }],
    usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: candidatesTokens, totalTokenCount: promptTokens + candidatesTokens },
    modelVersion: model,
    responseId: `scripted-${randomBytes(6).toString("hex")}`,
  };
}

/** The answer as SSE chunks: the text first, then the function calls with the finish reason, as the API streams them. */
export function geminiEvents(parts: Part[], model: string, promptTokens: number): string[] {
  const texts = parts.filter((p) => p.text !== undefined);
  const calls = parts.filter((p) => p.functionCall);
  const chunks =
    calls.length === 0
      ? [chunk(texts, model, promptTokens, true)]
      : [...(texts.length ? [chunk(texts, model, promptTokens, false)] : []), chunk(calls, model, promptTokens, true)];
  return chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`);
}

function googleError(code: number, status: string, message: string, details: unknown[] = []): unknown {
  return { error: { code, message, status, details } };
}

/** The error the Gemini CLI meets for each fault, as the real API answers it. */
function geminiErrorAnswer(fault: ProviderFault, model: string): ErrorAnswer | null {
  switch (fault.answer) {
    case "rate-limit":
      return {
        status: 429,
        headers: {},
        body: googleError(
          429,
          "RESOURCE_EXHAUSTED",
          `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count, limit: 2000000, model: ${model}\nPlease retry in ${fault.resetInSeconds}s.`,
          [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [
                {
                  quotaMetric: "generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count",
                  quotaId: "GenerateContentPaidTierInputTokensPerModelPerHour",
                  quotaDimensions: { location: "global", model },
                  quotaValue: "2000000",
                },
              ],
            },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${fault.resetInSeconds}s` },
          ],
        ),
      };
    case "quota":
      return {
        status: 429,
        headers: {},
        body: googleError(
          429,
          "RESOURCE_EXHAUSTED",
          `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50, model: ${model}`,
          [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [
                {
                  quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                  quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                  quotaDimensions: { location: "global", model },
                  quotaValue: "50",
                },
              ],
            },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${fault.resetInSeconds}s` },
          ],
        ),
      };
    case "server-error":
      return {
        status: 500,
        headers: {},
        body: googleError(
          500,
          "INTERNAL",
          "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
        ),
      };
    case "overloaded":
      return { status: 503, headers: {}, body: googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.") };
    case "unauthorized":
      return {
        status: 400,
        headers: {},
        body: googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "API_KEY_INVALID",
            domain: "googleapis.com",
            metadata: { service: "generativelanguage.googleapis.com" },
          },
        ]),
      };
    default:
      return null;
  }
}

export async function startGeminiApiServer(options: ScriptedServerOptions & { beforeTurn?: BeforeTurn } = {}): Promise<ScriptedServer> {
  const faults = new ProviderFaultBook();
  const route = async (ctx: RouteContext): Promise<boolean> => {
    const m = MODEL_PATH.exec(ctx.path);
    if (!m || ctx.req.method !== "POST") return false;
    const [, model, method] = m as unknown as [string, string, string];
    if (method === "countTokens") {
      sendJson(ctx.res, 200, { totalTokens: Math.ceil(ctx.body.length / 4) });
      return true;
    }
    const parsed = generateRequestSchema.safeParse(safeJson(ctx.body));
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      sendJson(ctx.res, 400, googleError(400, "INVALID_ARGUMENT", `Invalid JSON payload: ${first?.path.join(".") || "body"}: ${first?.message ?? "invalid"}`));
      return true;
    }
    const request = parsed.data;
    // Only the Stage's own conversation is scripted; the CLI's side calls (routing, summaries) get a plain answer.
    const sp = method === "streamGenerateContent" ? stagePromptIn(userTexts(request)) : null;
    const step = stepOfGemini(request);
    const scripted = sp && options.beforeTurn ? await options.beforeTurn(sp, step) : null;
    const fault = sp ? (faults.take({ ticket: sp.ticket, stage: sp.stage, step }) ?? (scripted ? providerFaultSchema.parse(scripted) : null)) : null;
    // The CLI sends no session header (x-gemini-api-privileged-user-id is the installation).
    ctx.record({ session: null, ticket: sp?.ticket ?? null, stage: sp?.stage ?? null, step, answer: fault ? fault.answer : sp ? "message" : "utility" });
    if (fault?.answer === "drop") {
      ctx.req.socket.destroy();
      return true;
    }
    const error = fault ? geminiErrorAnswer(fault, model) : null;
    if (error) {
      sendJson(ctx.res, error.status, error.body, error.headers);
      return true;
    }
    const parts = turnParts(request, sp);
    const promptTokens = Math.ceil(ctx.body.length / 4);
    if (method === "generateContent") {
      sendJson(ctx.res, 200, chunk(parts, model, promptTokens, true));
      return true;
    }
    const events = geminiEvents(parts, model, promptTokens);
    if (fault?.answer === "hold") {
      sendSse(ctx.res, events.slice(0, 1), {}, true);
      ctx.hold(ctx.res);
      return true;
    }
    sendSse(ctx.res, events, {});
    return true;
  };
  return startScriptedServer(route, faults, options);
}
