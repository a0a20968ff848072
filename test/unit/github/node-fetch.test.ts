import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { Octokit } from "@octokit/rest";
import { nodeHttpFetch } from "../../../src/adapters/github/node-fetch";

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A real HTTP server on the loopback whose answers each test writes. */
async function serve(handler: Handler): Promise<{ url: string; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => handler(req, body, res));
  });
  server.on("connection", (s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, sockets };
}

describe("Octokit's fetch over node:http (ADR 0489)", () => {
  let open: Server[] = [];
  afterEach(async () => {
    for (const s of open) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    open = [];
  });
  const start = async (handler: Handler) => {
    const s = await serve(handler);
    open.push(s.server);
    return s;
  };
  /** A fallback that says it was used instead of sending anything. */
  const noted: string[] = [];
  const fallback = (async (input: string | URL | Request) => {
    noted.push(String(input));
    return new Response("from fetch", { status: 200 });
  }) as typeof fetch;
  beforeEach(() => (noted.length = 0));

  it("sends the method, headers and body, and answers as fetch does: status, every header, the body, the URL", async () => {
    const { url } = await start((req, body, res) => {
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.setHeader("X-Seen", `${req.method} ${req.url} ${req.headers["content-length"]} ${req.headers.authorization} ${encodeURIComponent(body)}`);
      res.setHeader("Set-Cookie", ["a=1", "b=2"]);
      res.statusCode = 201;
      res.end('{"ok":true,"é":"ü"}');
    });
    const f = nodeHttpFetch(fallback);
    const r = await f(`${url}/repos/o/r/issues?x=1`, { method: "POST", body: '{"title":"café"}', headers: { authorization: "token t" } });
    assert.equal(r.status, 201);
    assert.equal(r.url, `${url}/repos/o/r/issues?x=1`);
    assert.equal(
      r.headers.get("x-seen"),
      `POST /repos/o/r/issues?x=1 ${Buffer.byteLength('{"title":"café"}')} token t ${encodeURIComponent('{"title":"café"}')}`,
    );
    assert.deepEqual(r.headers.getSetCookie(), ["a=1", "b=2"]);
    assert.deepEqual(await r.json(), { ok: true, é: "ü" });
    assert.deepEqual(noted, []);
  });

  it("gives Octokit the same answer and the same error as Node's fetch, through a kept-alive socket", async () => {
    const { url, sockets } = await start((req, _body, res) => {
      res.setHeader("Content-Type", "application/json");
      if (req.url === "/repos/o/r/issues/9") {
        res.statusCode = 404;
        res.end('{"message":"Not Found","documentation_url":"https://docs"}');
        return;
      }
      res.end(JSON.stringify({ number: 7, id: "9007199254740993" }));
    });
    const answers = [];
    for (const fetch of [nodeHttpFetch(), globalThis.fetch]) {
      const before = sockets.size;
      const octokit = new Octokit({ baseUrl: url, auth: "t", log: quiet, request: { fetch } });
      const ok = await octokit.request("GET /repos/{owner}/{repo}/issues/{n}", { owner: "o", repo: "r", n: 7 });
      const again = await octokit.request("GET /repos/{owner}/{repo}/issues/{n}", { owner: "o", repo: "r", n: 7 });
      const refused = await octokit.request("GET /repos/{owner}/{repo}/issues/{n}", { owner: "o", repo: "r", n: 9 }).then(
        () => ({ status: 0, message: "answered" }),
        (e: { status: number; message: string }) => e,
      );
      answers.push([ok.status, ok.data, again.data, refused.status, refused.message, sockets.size - before]);
    }
    assert.deepEqual(answers[0]!.slice(0, 5), answers[1]!.slice(0, 5));
    assert.equal(answers[0]![3], 404);
    // The three requests shared one socket.
    assert.equal(answers[0]![5], 1);
  });

  it("a 204 and a HEAD have no body", async () => {
    const { url } = await start((_req, _body, res) => {
      res.statusCode = _req.method === "HEAD" ? 200 : 204;
      res.end();
    });
    const f = nodeHttpFetch(fallback);
    const none = await f(`${url}/x`, { method: "DELETE" });
    assert.equal(none.status, 204);
    assert.equal(await none.text(), "");
    const head = await f(`${url}/x`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.body, null);
  });

  it("decodes a gzip answer as fetch does", async () => {
    const { url } = await start((_req, _body, res) => {
      res.setHeader("Content-Encoding", "gzip");
      res.end(gzipSync(Buffer.from("zipped text")));
    });
    assert.equal(await (await nodeHttpFetch(fallback)(`${url}/z`)).text(), "zipped text");
  });

  it("asks for a compressed answer as Node's fetch does, and keeps an Accept-Encoding the caller names", async () => {
    const seen: (string | undefined)[] = [];
    const { url } = await start((req, _body, res) => {
      seen.push(req.headers["accept-encoding"]);
      res.end("x");
    });
    await (await globalThis.fetch(`${url}/fetch`)).text();
    await (await nodeHttpFetch(fallback)(`${url}/ours`)).text();
    await (await nodeHttpFetch(fallback)(`${url}/named`, { headers: { "accept-encoding": "identity" } })).text();
    assert.ok(seen[0], "Node's fetch asks for an encoding");
    assert.deepEqual(seen, [seen[0], seen[0], "identity"]);
  });

  it("a refused connection is fetch's TypeError with the socket's error as its cause, so Octokit makes it a 500 with that message", async () => {
    const { url, server } = await start(() => undefined);
    open = [];
    await new Promise((r) => server.close(r));
    const e = (await nodeHttpFetch(fallback)(`${url}/gone`).catch((x: unknown) => x)) as TypeError & { cause: NodeJS.ErrnoException };
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, "fetch failed");
    assert.equal(e.cause.code, "ECONNREFUSED");
    const octokit = new Octokit({ baseUrl: url, log: quiet, request: { fetch: nodeHttpFetch() } });
    const viaOctokit = (await octokit.request("GET /gone").catch((x: unknown) => x)) as { status: number; message: string };
    assert.equal(viaOctokit.status, 500);
    assert.match(viaOctokit.message, /ECONNREFUSED/);
  });

  it("a server that stops answering fails the request after the silence allowed, as fetch's timeouts do, not never", async () => {
    const { url } = await start(() => undefined); // reads the request, never answers
    const e = (await nodeHttpFetch(fallback, 150)(`${url}/silent`).catch((x: unknown) => x)) as TypeError & { cause: Error };
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, "fetch failed");
    assert.match(e.cause.message, /no answer from 127\.0\.0\.1:\d+ for 150 ms/);
  });

  it("a redirect, a signal, a stream body or a non-http URL goes to fetch itself", async () => {
    let hits = 0;
    const { url } = await start((_req, _body, res) => {
      hits++;
      res.statusCode = 301;
      res.setHeader("Location", "/elsewhere");
      res.end();
    });
    const f = nodeHttpFetch(fallback);
    assert.equal(await (await f(`${url}/moved`)).text(), "from fetch");
    assert.equal(hits, 1);
    await f(`${url}/a`, { signal: new AbortController().signal });
    await f(`${url}/b`, { method: "POST", body: new ReadableStream(), duplex: "half" } as RequestInit);
    await f(`${url}/c`, { redirect: "manual" });
    await f("data:text/plain,x");
    assert.deepEqual(noted, [`${url}/moved`, `${url}/a`, `${url}/b`, `${url}/c`, "data:text/plain,x"]);
    assert.equal(hits, 1);
  });

  it("a kept-alive socket the server closed meanwhile: a GET is sent again on a new one, a POST is not", async () => {
    const seen = new WeakMap<object, number>();
    let n = 0;
    const { url } = await start((req, _body, res) => {
      n++;
      const onSocket = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, onSocket);
      // The second request on a connection: the socket closed with no answer, as a server's idle timeout does.
      if (onSocket === 2) {
        req.socket.destroy();
        return;
      }
      res.end("fine");
    });
    const f = nodeHttpFetch(fallback);
    assert.equal(await (await f(`${url}/1`)).text(), "fine");
    assert.equal(await (await f(`${url}/2`)).text(), "fine");
    assert.equal(n, 3);
    const e = (await f(`${url}/3`, { method: "POST", body: "x" }).catch((x: unknown) => x)) as TypeError;
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, "fetch failed");
    assert.equal(n, 4);
  });
});
