/**
 * A scripted model server: the Anthropic Messages API (POST /v1/messages, streamed as server-sent
 * events) answering Ticket Runner's Stage prompts from the issue's `ticket-runner-demo` block, so
 * the real Claude Code (ANTHROPIC_BASE_URL=<url>) works whole tickets offline with no account.
 * Scripted faults (faults.ts) are added through `faults` or POST /_scripted/faults; every request is
 * recorded (GET /_scripted/requests) so tests can count what a session cost. See docs/agents.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { join } from "node:path";
import { behavioursOf, extractIssue, parseDemoBlock } from "../demo-agent/demo-block";
import { errorAnswer, FaultBook, faultSchema } from "./faults";
import type { Fault } from "./faults";
import { messagesRequestSchema } from "./messages";
import type { MessagesRequest } from "./messages";
import { messageId, messageJson, sseEvents, writeSse } from "./sse";
import type { StreamedMessage } from "./sse";
import { nextTurn, stagePromptOf, stepOf } from "./script";
import type { StagePrompt } from "./script";

export interface ModelRequestRecord {
  n: number;
  at: string;
  /** Claude Code's session, from its x-claude-code-session-id header. */
  session: string | null;
  ticket: number | null;
  stage: string | null;
  step: number;
  /** What was answered: `message`, or the fault. */
  answer: string;
  userAgent: string;
}

export interface ModelServerOptions {
  port?: number;
  host?: string;
  /** Write every request (API key removed) as `<n>.json` here: how the real binary's requests were learned. */
  recordDir?: string;
  now?: () => number;
}

export interface ModelServer {
  url: string;
  port: number;
  faults: FaultBook;
  requests(): ModelRequestRecord[];
  /** Ends every held stream (drops its connection). */
  releaseHolds(): void;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_scripted_${Date.now()}`, ...headers });
  res.end(JSON.stringify(body));
}

function invalid(res: ServerResponse, message: string): void {
  json(res, 400, { type: "error", error: { type: "invalid_request_error", message } });
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const now = options.now ?? Date.now;
  const faults = new FaultBook();
  const records: ModelRequestRecord[] = [];
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  /** `rate-limit-once` behaviours already spent, by `<ticket>` or `<ticket>:<stage>`. */
  const limitedOnce = new Set<string>();
  let n = 0;

  const blockFault = (sp: StagePrompt): Fault | null => {
    try {
      const b = behavioursOf(parseDemoBlock(extractIssue(sp.prompt).body));
      if (!b.rateLimitOnce || (b.rateLimitOnce !== "any" && b.rateLimitOnce !== sp.stage)) return null;
      const key = b.rateLimitOnce === "any" ? `${sp.ticket}` : `${sp.ticket}:${sp.stage}`;
      if (limitedOnce.has(key)) return null;
      limitedOnce.add(key);
      return faultSchema.parse({ answer: "rate-limit" });
    } catch {
      return null;
    }
  };

  const answerMessages = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await readBody(req);
    n += 1;
    const number = n;
    if (options.recordDir) {
      mkdirSync(options.recordDir, { recursive: true });
      const headers = { ...req.headers, "x-api-key": req.headers["x-api-key"] ? "<removed>" : undefined, authorization: req.headers.authorization ? "<removed>" : undefined };
      writeFileSync(join(options.recordDir, `${String(number).padStart(4, "0")}.json`), JSON.stringify({ url: req.url, headers, body: safeJson(text) }, null, 1));
    }
    const parsed = messagesRequestSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      invalid(res, `${first?.path.join(".") || "body"}: ${first?.message ?? "invalid"}`);
      return;
    }
    const request: MessagesRequest = parsed.data;
    const sp = stagePromptOf(request);
    const step = stepOf(request);
    const fault = sp ? (faults.take({ ticket: sp.ticket, stage: sp.stage, step }) ?? (step === 0 ? blockFault(sp) : null)) : faults.take({ ticket: null, stage: null, step });
    records.push({
      n: number,
      at: new Date(now()).toISOString(),
      session: typeof req.headers["x-claude-code-session-id"] === "string" ? req.headers["x-claude-code-session-id"] : null,
      ticket: sp?.ticket ?? null,
      stage: sp?.stage ?? null,
      step,
      answer: fault ? fault.answer : "message",
      userAgent: String(req.headers["user-agent"] ?? ""),
    });
    if (fault) {
      if (fault.answer === "drop") {
        req.socket.destroy();
        return;
      }
      const error = errorAnswer(fault, now());
      if (error) {
        json(res, error.status, error.body, error.headers);
        return;
      }
    }
    const turn = sp ? nextTurn(request, sp) : { blocks: [{ type: "text" as const, text: "OK." }], final: true };
    const message: StreamedMessage = {
      id: messageId(),
      model: request.model,
      blocks: turn.blocks,
      stopReason: turn.blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
      inputTokens: Math.ceil(text.length / 4),
    };
    const headers = { "request-id": `req_scripted_${number}`, "anthropic-ratelimit-unified-status": "allowed", "anthropic-ratelimit-unified-reset": String(Math.floor(now() / 1000) + 5 * 3600) };
    if (fault?.answer === "hold") {
      // Half an answer, then nothing: the session is stuck mid-stream until killed or released.
      const events = sseEvents(message);
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", ...headers });
      for (const e of events.slice(0, 3)) res.write(e);
      held.add(res);
      res.on("close", () => held.delete(res));
      return;
    }
    if (request.stream === false) {
      json(res, 200, messageJson(message), headers);
      return;
    }
    writeSse(res, sseEvents(message), headers);
  };

  const admin = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (path === "/_scripted/requests" && req.method === "GET") return json(res, 200, records);
    if (path === "/_scripted/faults" && req.method === "DELETE") {
      faults.clear();
      return json(res, 200, { cleared: true });
    }
    if (path === "/_scripted/faults" && req.method === "POST") {
      const parsed = faultSchema.safeParse(safeJson(await readBody(req)));
      if (!parsed.success) return invalid(res, parsed.error.issues.map((i) => `${i.path.join(".") || "fault"}: ${i.message}`).join("; "));
      faults.add(parsed.data);
      return json(res, 201, parsed.data);
    }
    if (path === "/_scripted/release-holds" && req.method === "POST") {
      const count = held.size;
      releaseHolds();
      return json(res, 200, { released: count });
    }
    return json(res, 404, { type: "error", error: { type: "not_found_error", message: `no admin route ${req.method} ${path}` } });
  };

  const releaseHolds = (): void => {
    for (const res of held) res.destroy();
    held.clear();
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const work = async (): Promise<void> => {
      if (path.startsWith("/_scripted/")) return admin(req, res, path);
      if (path === "/api/hello") return json(res, 200, { message: "hello" });
      if (path === "/v1/messages/count_tokens" && req.method === "POST") {
        const body = await readBody(req);
        return json(res, 200, { input_tokens: Math.ceil(body.length / 4) });
      }
      if (path === "/v1/messages" && req.method === "POST") return answerMessages(req, res);
      // Anything else the CLI asks (feature flags, telemetry) has no answer here; it copes offline.
      return json(res, 404, { type: "error", error: { type: "not_found_error", message: `the scripted model server has no ${req.method} ${path}` } });
    };
    work().catch((error: unknown) => json(res, 500, { type: "error", error: { type: "api_error", message: `scripted model server: ${error instanceof Error ? error.message : String(error)}` } }));
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    faults,
    requests: () => [...records],
    releaseHolds,
    stop: () =>
      new Promise<void>((resolve) => {
        releaseHolds();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

