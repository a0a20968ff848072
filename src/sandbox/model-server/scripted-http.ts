/**
 * The HTTP plumbing the scripted provider servers share: bodies read with a cap, JSON answers,
 * SSE answers, streams held open mid-answer (a stalled provider) until released or stopped, an
 * admin surface for faults and the request record, and a stop that closes every socket.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { join } from "node:path";
import { providerFaultSchema } from "./provider-faults";
import type { ProviderFaultBook } from "./provider-faults";

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface ScriptedRequestRecord {
  n: number;
  at: string;
  path: string;
  /** The agent's session, from the header its provider client sends; null when none. */
  session: string | null;
  ticket: number | null;
  stage: string | null;
  step: number;
  /** `message`, `utility` (a non-Stage call) or the fault answered. */
  answer: string;
  userAgent: string;
}

export interface ScriptedServer {
  url: string;
  port: number;
  faults: ProviderFaultBook;
  requests(): ScriptedRequestRecord[];
  /** Ends every held stream (drops its connection). */
  releaseHolds(): void;
  stop(): Promise<void>;
}

export interface ScriptedServerOptions {
  port?: number;
  host?: string;
  /** Write every request (credentials removed) as `<n>.json` here: how the real binary's requests were learned. */
  recordDir?: string;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  body: string;
  /** Keeps `res` open until released or the server stops. */
  hold(res: ServerResponse): void;
  record(r: Omit<ScriptedRequestRecord, "n" | "at" | "path" | "userAgent">): void;
}

/** Answers a provider request; returns false when the path is not the provider's. */
export type ProviderRoute = (ctx: RouteContext) => Promise<boolean>;

export function readBody(req: IncomingMessage): Promise<string> {
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

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Starts the SSE answer and writes `events` (already framed); ends it unless `keepOpen`. */
export function sendSse(res: ServerResponse, events: readonly string[], headers: Record<string, string>, keepOpen = false): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
  for (const e of events) res.write(e);
  if (!keepOpen) res.end();
}

const REDACTED_HEADERS = ["authorization", "x-api-key", "x-goog-api-key", "cookie"];

export async function startScriptedServer(route: ProviderRoute, faults: ProviderFaultBook, options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const records: ScriptedRequestRecord[] = [];
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  let n = 0;

  const releaseHolds = (): void => {
    for (const res of held) res.destroy();
    held.clear();
  };

  const admin = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (path === "/_scripted/requests" && req.method === "GET") return sendJson(res, 200, records);
    if (path === "/_scripted/faults" && req.method === "DELETE") {
      faults.clear();
      return sendJson(res, 200, { cleared: true });
    }
    if (path === "/_scripted/faults" && req.method === "POST") {
      const parsed = providerFaultSchema.safeParse(safeJson(await readBody(req)));
      if (!parsed.success) return sendJson(res, 400, { error: parsed.error.issues.map((i) => `${i.path.join(".") || "fault"}: ${i.message}`).join("; ") });
      return sendJson(res, 201, faults.add(parsed.data));
    }
    if (path === "/_scripted/release-holds" && req.method === "POST") {
      const count = held.size;
      releaseHolds();
      return sendJson(res, 200, { released: count });
    }
    return sendJson(res, 404, { error: `no admin route ${req.method} ${path}` });
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const work = async (): Promise<void> => {
      if (path.startsWith("/_scripted/")) return admin(req, res, path);
      const body = await readBody(req);
      n += 1;
      const number = n;
      if (options.recordDir) {
        mkdirSync(options.recordDir, { recursive: true });
        const headers: Record<string, unknown> = { ...req.headers };
        for (const h of REDACTED_HEADERS) if (headers[h] !== undefined) headers[h] = "<removed>";
        const url = (req.url ?? "").replace(/([?&]key=)[^&]*/, "$1<removed>");
        writeFileSync(
          join(options.recordDir, `${String(number).padStart(4, "0")}.json`),
          JSON.stringify({ method: req.method, url, headers, body: safeJson(body) ?? body }, null, 1),
        );
      }
      const ctx: RouteContext = {
        req,
        res,
        path,
        body,
        hold: (r) => {
          held.add(r);
          r.on("close", () => held.delete(r));
        },
        record: (r) => records.push({ ...r, n: number, at: new Date().toISOString(), path, userAgent: String(req.headers["user-agent"] ?? "") }),
      };
      if (await route(ctx)) return;
      // Anything else the CLI asks (telemetry, model lists) has no answer here; it copes offline.
      sendJson(res, 404, { error: { code: 404, message: `the scripted model server has no ${req.method} ${path}`, status: "NOT_FOUND" } });
    };
    work().catch((error: unknown) =>
      sendJson(res, 500, {
        error: { code: 500, message: `scripted model server: ${error instanceof Error ? error.message : String(error)}`, status: "INTERNAL" },
      }),
    );
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
