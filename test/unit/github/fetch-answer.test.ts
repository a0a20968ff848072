import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { AnswerHeaders, FetchAnswer } from "../../../src/adapters/github/fetch-answer";

const RAW = ["Content-Type", "application/json", "X-B", "2", "x-a", "1", "Set-Cookie", "a=1", "X-B", "3", "set-cookie", "b=2", "Link", "<u>; rel=next"];

describe("the answer Octokit is handed, as fetch's Response (ADR 0490)", () => {
  it("reads its headers as undici's Headers reads the same lines: names lower-cased, sorted, repeats joined, Set-Cookie one by one", () => {
    const ours = new AnswerHeaders(RAW);
    const theirs = new Headers();
    for (let i = 0; i < RAW.length; i += 2) theirs.append(RAW[i]!, RAW[i + 1]!);
    assert.deepEqual([...ours], [...theirs]);
    assert.deepEqual([...ours.keys()], [...theirs.keys()]);
    assert.deepEqual([...ours.values()], [...theirs.values()]);
    for (const name of ["x-b", "X-A", "set-cookie", "content-type", "missing"]) {
      assert.equal(ours.get(name), theirs.get(name), name);
      assert.equal(ours.has(name), theirs.has(name), name);
    }
    assert.deepEqual(ours.getSetCookie(), theirs.getSetCookie());
    const seen: string[] = [];
    ours.forEach((value, name) => seen.push(`${name}=${value}`));
    assert.deepEqual(
      seen,
      [...theirs].map(([n, v]) => `${n}=${v}`),
    );
  });

  it("gives its body once, as text (UTF-8, a leading byte-order mark dropped), JSON, bytes or a stream", async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"é":"ü"}', "utf8")]);
    const answer = () => new FetchAnswer(200, "OK", new AnswerHeaders(RAW), body, "http://h/x");
    const ours = answer();
    const theirs = new Response(body, { status: 200 });
    assert.equal(await ours.text(), await theirs.text());
    await assert.rejects(() => ours.text(), TypeError);
    assert.equal(ours.bodyUsed, true);
    assert.deepEqual(await answer().json(), { é: "ü" });
    assert.deepEqual(Buffer.from(await answer().arrayBuffer()), body);
    assert.deepEqual(Buffer.from(await new Response(answer().body).arrayBuffer()), body);
    const none = new FetchAnswer(204, "No Content", new AnswerHeaders([]), null, "http://h/x");
    assert.equal(none.body, null);
    assert.equal(await none.text(), "");
    assert.equal(none.ok, true);
    assert.equal(new FetchAnswer(404, "Not Found", new AnswerHeaders([]), null, "u").ok, false);
    assert.throws(() => new FetchAnswer(600, "", new AnswerHeaders([]), null, "u"), RangeError);
  });

  it("a process whose GitHub requests all go through it never loads undici", () => {
    // A fresh process: this one may have loaded undici for another test.
    const script = `
      const { createServer } = require("node:http");
      const { Octokit } = require("@octokit/rest");
      const { nodeHttpFetch } = require(${JSON.stringify(resolve(__dirname, "../../../src/adapters/github/node-fetch"))});
      const server = createServer((req, res) => { res.setHeader("content-type", "application/json"); res.end('{"login":"me"}'); });
      server.listen(0, "127.0.0.1", async () => {
        const octokit = new Octokit({ baseUrl: "http://127.0.0.1:" + server.address().port, auth: "t", request: { fetch: nodeHttpFetch() } });
        const { data } = await octokit.request("GET /user");
        server.close();
        server.closeAllConnections();
        console.log(JSON.stringify({ login: data.login, undici: process.moduleLoadList.filter((m) => m.includes("undici")) }));
      });`;
    const out = execFileSync(process.execPath, ["--require", "tsx/cjs", "-e", script], { encoding: "utf8", cwd: resolve(__dirname, "../../..") });
    assert.deepEqual(JSON.parse(out.trim().split("\n").pop()!), { login: "me", undici: [] });
  });
});
