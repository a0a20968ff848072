/**
 * The `fetch` the Octokit client sends its requests with (ADR 0489): node:http(s) on Node's
 * keep-alive agent, the answer read whole into a `Response` of our own (./fetch-answer.ts, ADR
 * 0490: Node's `Headers` and `Response` are undici's, and touching either loads all of it). Node's own `fetch` (undici)
 * cost this VM ~2.6 ms of CPU and ~8 ms of wall time a request against ~0.6 and ~1 ms here, and a
 * ticket sends ~37 GitHub requests. It keeps what Octokit sees of `fetch`: the same status, headers
 * (duplicates combined as `Headers` combines them) and body; a transport failure is a
 * `TypeError("fetch failed")` whose `cause` is the socket's error, as undici throws it, so Octokit
 * still makes it a status-500 `RequestError` with the cause's message. Like `fetch`, it asks for a
 * compressed answer (`accept-encoding`, unless the caller names one) and decodes it.
 *
 * What it is not sure to do as `fetch` would goes to `fetch` itself: a body that is not a string or
 * bytes, a signal, a redirect mode other than "follow", a URL that is not http(s); and a redirect
 * answer (3xx with a Location), which `fetch` then sends again and follows with its own rules (it
 * drops the Authorization header on a cross-origin hop). A redirect is an answer the server gave
 * without acting on the request, so sending it once more is what following it means.
 */
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { AnswerHeaders, FetchAnswer } from "./fetch-answer";

type Fetch = typeof globalThis.fetch;

/** Statuses whose answer has no body (a `Response` refuses one for them). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** Methods HTTP says may be sent twice: only these are sent again when a kept-alive socket turns out closed. */
const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
/**
 * A connection silent this long fails the request, as undici's headers and body timeouts (300 s
 * each) fail `fetch`'s: node:http alone would wait for ever on a server that stopped answering.
 */
export const SILENT_MS = 300_000;

/** The body when this path can send it (a string or bytes), undefined when there is none, null when `fetch` must. */
function bodyBytes(body: RequestInit["body"]): Buffer | undefined | null {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return null;
}

/**
 * Plain header objects only (what Octokit passes); anything else (a `Headers`, an array of pairs)
 * goes to `fetch`. Told apart by prototype: naming the `Headers` global would load undici.
 */
function plainHeaders(headers: RequestInit["headers"]): Record<string, string> | null {
  if (headers === undefined) return {};
  if (typeof headers !== "object" || headers === null) return null;
  const proto = Object.getPrototypeOf(headers) as unknown;
  if (proto !== Object.prototype && proto !== null) return null;
  return { ...(headers as Record<string, string>) };
}

/** The answer's body as `fetch` hands it over: decoded from the content encodings it decodes. */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  const codings = (encoding ?? "")
    .toLowerCase()
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c && c !== "identity");
  let out = body;
  for (const coding of codings.reverse()) {
    if (coding === "gzip" || coding === "x-gzip") out = gunzipSync(out);
    else if (coding === "deflate") out = inflateSync(out);
    else if (coding === "br") out = brotliDecompressSync(out);
    else return body; // an encoding fetch does not decode either: the bytes as they came
  }
  return out;
}

/**
 * The answer as `fetch` would give it, named by the URL answered (no redirect was followed here).
 * Typed as the `Response` it stands for: it has every reading member Octokit or a caller uses.
 */
function toResponse(res: IncomingMessage, body: Buffer, url: string, method: string): Response {
  const status = res.statusCode ?? 0;
  const empty = NULL_BODY.has(status) || method === "HEAD";
  const answer = new FetchAnswer(
    status,
    res.statusMessage ?? "",
    new AnswerHeaders(res.rawHeaders),
    empty ? null : decoded(body, res.headers["content-encoding"]),
    url,
  );
  return answer as unknown as Response;
}

interface Sent {
  res: IncomingMessage;
  body: Buffer;
}

function send(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, silentMs: number): Promise<Sent> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url, { method, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => resolve({ res, body: Buffer.concat(chunks) }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      // A kept-alive socket the server had closed meanwhile: the request never reached it.
      const stale = req.reusedSocket && !answered && (e.code === "ECONNRESET" || e.code === "EPIPE");
      reject(stale ? new StaleSocket(e) : e);
    });
    req.setTimeout(silentMs, () => req.destroy(new Error(`no answer from ${url.host} for ${silentMs} ms`)));
    req.end(body);
  });
}

class StaleSocket extends Error {
  override readonly name = "StaleSocket";
  constructor(readonly original: Error) {
    super(original.message);
  }
}

/**
 * A `fetch` for Octokit's `request.fetch`: node:http(s) where it can be, `fallback` (Node's `fetch`)
 * where not. Node's `fetch` is looked up only then: reading `globalThis.fetch` loads undici.
 */
export function nodeHttpFetch(given?: Fetch, silentMs = SILENT_MS): Fetch {
  const fallback: Fetch = (input, init) => (given ?? globalThis.fetch)(input, init);
  return async (input, init = {}) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : null;
    const bytes = bodyBytes(init.body);
    const plain = plainHeaders(init.headers);
    if (href === null || bytes === null || plain === null || init.signal || (init.redirect !== undefined && init.redirect !== "follow"))
      return fallback(input, init);
    const url = new URL(href);
    if (url.protocol !== "http:" && url.protocol !== "https:") return fallback(input, init);
    const method = (init.method ?? "GET").toUpperCase();
    const headers = plain;
    const named = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
    // fetch asks for a compressed answer unless told otherwise (undici: br too over https), and decodes it (decoded()).
    if (!named.has("accept-encoding")) headers["accept-encoding"] = url.protocol === "https:" ? "br, gzip, deflate" : "gzip, deflate";
    // fetch states the length of every body it sends, and 0 for a bodiless POST or PUT.
    if (!named.has("content-length") && (bytes !== undefined || method === "POST" || method === "PUT")) headers["content-length"] = String(bytes?.length ?? 0);
    let sent: Sent;
    try {
      try {
        sent = await send(url, method, headers, bytes, silentMs);
      } catch (e) {
        if (!(e instanceof StaleSocket)) throw e;
        if (!IDEMPOTENT.has(method)) throw e.original;
        sent = await send(url, method, headers, bytes, silentMs);
      }
    } catch (e) {
      throw new TypeError("fetch failed", { cause: e instanceof StaleSocket ? e.original : e });
    }
    const status = sent.res.statusCode ?? 0;
    if (REDIRECT.has(status) && sent.res.headers.location !== undefined) return fallback(input, init);
    try {
      return toResponse(sent.res, sent.body, url.href, method);
    } catch (e) {
      throw new TypeError("fetch failed", { cause: e });
    }
  };
}
