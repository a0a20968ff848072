// Bad input: GitHub's error shapes (https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api),
// refused path traversal, the request size limit, and a sandbox that keeps answering afterwards.
import { strict as assert } from "node:assert";
import { request } from "node:http";
import { closeWorld, makeWorld, OWNER, REPO } from "./support";
import type { World } from "./support";

function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("sandbox bad input", function () {
  let w: World;
  let auth: Record<string, string>;
  before(async () => {
    w = await makeWorld();
    auth = { authorization: `token ${w.tokens.bob}`, "content-type": "application/json" };
  });
  after(async () => closeWorld(w));

  it("malformed JSON is 400 Problems parsing JSON", async () => {
    const r = await rawRequest(w.sb.apiUrl, "POST", `/repos/${OWNER}/${REPO}/issues`, auth, "{ nope");
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).message, "Problems parsing JSON");
  });

  it("an unknown field is 422 with message, errors and documentation_url", async () => {
    const r = await rawRequest(w.sb.apiUrl, "POST", `/repos/${OWNER}/${REPO}/issues`, auth, JSON.stringify({ title: "t", colour: "red" }));
    assert.equal(r.status, 422);
    const body = JSON.parse(r.body);
    assert.match(body.message, /"colour" is not a permitted key/);
    assert.ok(Array.isArray(body.errors));
    assert.match(body.documentation_url, /^https:\/\/docs\.github\.com\//);
  });

  it("a wrong type or a missing required field is 422", async () => {
    const wrong = await rawRequest(w.sb.apiUrl, "POST", `/repos/${OWNER}/${REPO}/issues`, auth, JSON.stringify({ title: { no: 1 } }));
    assert.equal(wrong.status, 422);
    const missing = await rawRequest(w.sb.apiUrl, "POST", `/repos/${OWNER}/${REPO}/issues`, auth, JSON.stringify({ body: "no title" }));
    assert.equal(missing.status, 422);
    assert.match(JSON.parse(missing.body).message, /"title" wasn't supplied/);
    const labels = await rawRequest(w.sb.apiUrl, "POST", `/repos/${OWNER}/${REPO}/issues/1/labels`, auth, JSON.stringify({ labels: "bug" }));
    assert.ok(labels.status === 422 || labels.status === 404);
  });

  it("a request body over 25 MB is refused with 413", async () => {
    const big = JSON.stringify({ title: "big", body: "x".repeat(26 * 1024 * 1024) });
    const r = await rawRequest(w.sb.apiUrl, "POST", `/repos/${OWNER}/${REPO}/issues`, auth, big);
    assert.equal(r.status, 413);
  });

  it("path traversal in owner, repo and git paths is refused", async () => {
    for (const path of [`/repos/..%2F..%2Fetc/passwd`, `/repos/%2e%2e/%2e%2e`, `/repos/${OWNER}/..%2F${REPO}/issues`]) {
      const r = await rawRequest(w.sb.apiUrl, "GET", path, auth);
      assert.equal(r.status, 404, path);
    }
    for (const path of [
      `/..%2F..%2Fetc/passwd.git/info/refs?service=git-upload-pack`,
      `/${OWNER}/${REPO}.git/../../secret.git/info/refs?service=git-upload-pack`,
      `/${OWNER}/${REPO}.git/HEAD`,
    ]) {
      const r = await rawRequest(w.sb.apiUrl, "GET", path, auth);
      assert.ok(r.status === 404 || r.status === 400, `${path}: ${r.status}`);
    }
    await assert.rejects(w.sb.admin.createRepo({ owner: "..", name: "x" }), /422/);
    await assert.rejects(w.sb.admin.createRepo({ owner: "a", name: "b", files: { "../escape.txt": "x" } }), /422/);
  });

  it("a malformed percent-encoding is 400, an unknown route 404; the server keeps answering", async () => {
    assert.equal((await rawRequest(w.sb.apiUrl, "GET", `/repos/%E0%A4%A/x`, auth)).status, 400);
    assert.equal((await rawRequest(w.sb.apiUrl, "GET", `/nope/nope/nope`, auth)).status, 404);
    assert.equal((await w.as("bob").users.getAuthenticated()).status, 200);
  });

  it("a refused write changes nothing", async () => {
    const before = (await w.as("bob").issues.listForRepo({ ...{ owner: OWNER, repo: REPO }, state: "all" })).data.length;
    await rawRequest(w.sb.apiUrl, "POST", `/repos/${OWNER}/${REPO}/issues`, auth, JSON.stringify({ title: "t", body: "x".repeat(70_000) }));
    const after = (await w.as("bob").issues.listForRepo({ ...{ owner: OWNER, repo: REPO }, state: "all" })).data.length;
    assert.equal(after, before);
  });
});
