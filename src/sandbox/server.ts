/**
 * The request pipeline: faults, authentication, rate limits, body parsing, routing, ETags,
 * persistence and the request log. Every handler runs inside one try/catch so no input can
 * crash the process.
 */
import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { App } from "./app";
import { authenticate } from "./auth";
import { errorBody, HttpError } from "./http";
import type { Reply } from "./http";
import { isoNow } from "./model";
import { headersOf } from "./rate-limit";
import type { Resource } from "./rate-limit";
import type { Ctx, Router } from "./router";
import { handleGitHttp, isGitPath } from "./routes/git-http";
import { handleAdmin } from "./admin";
import { parseJson, readBody } from "./body";
import { SecondaryAs200 } from "./faults";

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>, serialized?: string): void {
  if (res.headersSent || res.destroyed) return;
  const text = body === undefined || status === 204 || status === 304 ? "" : (serialized ?? JSON.stringify(body));
  res.writeHead(status, {
    "x-github-request-id": randomUUID(),
    "x-github-media-type": "github.v3; format=json",
    ...(text ? { "content-type": "application/json; charset=utf-8" } : {}),
    ...headers,
  });
  res.end(text);
}

export function createHandler(app: App, router: Router, quiet: boolean) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(app, router, req, res).catch((error: unknown) => {
      if (!quiet) process.stderr.write(`sandbox: unexpected error: ${String(error)}\n`);
      send(res, 500, { message: "Server Error" }, {});
    });
  };
}

/** A request that changes something: any non-GET outside GraphQL, and a GraphQL mutation. */
function isWrite(method: string, path: string, body: unknown): boolean {
  if (method === "GET") return false;
  if (path !== "/graphql") return true;
  const query = typeof body === "object" && body !== null ? (body as { query?: unknown }).query : undefined;
  return typeof query === "string" && /^\s*mutation\b/.test(query);
}

async function handle(app: App, router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://sandbox.invalid");
  const method = (req.method ?? "GET").toUpperCase();
  const path = url.pathname;
  if (path.startsWith("/_sandbox/")) {
    await handleAdmin(app, req, res, path, method, url.searchParams);
    return;
  }
  const started = isoNow();
  let user: string | null = null;
  let write = false;
  const log = (status: number): void => {
    app.requestLog.push({ method, path, query: url.search, status, user, at: started, ...(write ? { write } : {}) });
    if (app.requestLog.length > 20_000) app.requestLog.splice(0, 10_000);
  };

  if (app.faults.shouldDrop()) {
    log(0);
    req.socket.destroy();
    return;
  }
  await app.faults.delay();

  if (isGitPath(path)) {
    const status = await handleGitHttp(app, req, res, path, url.search.slice(1), (login) => (user = login));
    log(status);
    return;
  }

  const resource: Resource = path === "/graphql" ? "graphql" : "core";
  let rateHeaders: Record<string, string> = {};
  let rateKey = "";
  try {
    app.faults.maybeError(`${method} ${path}`);
    const who = authenticate(app.store, req);
    user = who?.login ?? null;
    rateKey = who ? String(who.id) : (req.socket.remoteAddress ?? "anonymous");
    const counted = path !== "/rate_limit";
    if (counted && who && resource === "graphql" && app.rates.info(rateKey, false, resource).remaining <= 0) {
      // GitHub answers a spent GraphQL budget with 200, an error of type RATE_LIMITED and the headers
      // (https://docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#exceeding-the-rate-limit).
      send(
        res,
        200,
        { errors: [{ type: "RATE_LIMITED", message: `API rate limit already exceeded for user ID ${who.id}.` }] },
        headersOf(app.rates.info(rateKey, false, resource)),
      );
      log(200);
      return;
    }
    if (counted) {
      const info = app.rates.check(rateKey, !who, resource);
      rateHeaders = headersOf({ ...info, used: info.used + 1, remaining: info.remaining - 1 });
    }
    // GitHub names a classic token's scopes on every answer (https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps).
    if (who?.scopes) rateHeaders["x-oauth-scopes"] = who.scopes.join(", ");
    const raw = WRITE_METHODS.has(method) ? await readBody(req) : Buffer.alloc(0);
    const body = parseJson(raw);
    write = isWrite(method, path, body);
    if (who && write) await app.faults.hold(`${method} ${path}`, who.login);
    const match = router.match(method, path);
    if (!match) throw new HttpError(404, "Not Found");
    if ("methodNotAllowed" in match) throw new HttpError(404, "Not Found");
    if (WRITE_METHODS.has(method) && who && (path !== "/graphql" || write)) app.faults.countWrite(who.login, path === "/graphql");
    const ctx: Ctx = { app, req, method, path, query: url.searchParams, params: match.params, body, user: who };
    const reply: Reply = await match.handler(ctx);
    if (method === "GET" && reply.status === 200) {
      const text = JSON.stringify(reply.body ?? null);
      const etag = `W/"${createHash("sha1")
        .update(user ?? "")
        .update(text)
        .digest("hex")}"`;
      const headers = { ...rateHeaders, ...reply.headers, etag };
      if (req.headers["if-none-match"] === etag) {
        // Conditional requests that come back 304 do not count against the rate limit.
        if (counted) rateHeaders = headersOf(app.rates.info(rateKey, !who, resource));
        send(res, 304, undefined, { ...headers, ...rateHeaders });
        log(304);
        return;
      }
      if (counted) app.rates.spend(rateKey, resource);
      send(res, 200, reply.body, headers, text);
      log(200);
      return;
    }
    if (counted) app.rates.spend(rateKey, resource);
    if (method !== "GET" && !reply.readOnly) await app.store.changed();
    if (isWrite(method, path, body) && reply.status < 400 && app.faults.loseResponse(`${method} ${path}`)) {
      log(0);
      req.socket.destroy();
      return;
    }
    send(res, reply.status, reply.body, { ...rateHeaders, ...reply.headers });
    log(reply.status);
  } catch (error) {
    if (error instanceof SecondaryAs200) {
      // GitHub's GraphQL secondary limit may come back as 200 with errors
      // (https://docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#exceeding-the-secondary-rate-limit).
      send(res, 200, { errors: [{ message: error.message }] }, { ...rateHeaders, ...error.headers });
      log(200);
      return;
    }
    if (error instanceof HttpError) {
      send(res, error.status, errorBody(error), { ...rateHeaders, ...error.headers });
      log(error.status);
      return;
    }
    if (error instanceof URIError) {
      send(res, 400, { message: "Bad request: malformed percent-encoding in the path" }, rateHeaders);
      log(400);
      return;
    }
    throw error;
  }
}
