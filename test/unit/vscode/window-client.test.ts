import * as assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WindowClient } from "../../../src/vscode/github-client";
import type { Log } from "../../../src/ports/log";

const quiet: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe("the window's GitHub client", () => {
  let server: Server;
  let apiUrl: string;
  let hits = 0;

  before(async () => {
    // Fails every other request with a 502, like a GitHub hiccup.
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(hits % 2 === 1 ? 502 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: hits % 2 === 0 }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is one client per API and token, and a new one when either changes", () => {
    const clients = new WindowClient(quiet);
    const a = clients.get(apiUrl, "t1");
    assert.equal(clients.get(apiUrl, "t1"), a);
    assert.notEqual(clients.get(apiUrl, "t2"), a);
    assert.notEqual(clients.get(`${apiUrl}/api/v3`, "t2"), clients.get(apiUrl, "t2"));
  });

  it("retries a 5xx on a read, as the CLI's client does (createOctokit)", async () => {
    hits = 0;
    const client = new WindowClient(quiet).get(apiUrl, "t1");
    const res = await client.request("GET /repos/{owner}/{repo}", { owner: "o", repo: "r" });
    assert.equal(res.status, 200);
    assert.equal(hits, 2, "one 502, then the retry");
  });
});
