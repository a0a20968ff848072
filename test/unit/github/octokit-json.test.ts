import assert from "node:assert/strict";
import { build, stop } from "esbuild";
import { JSONParse as library } from "json-with-bigint";
import { JSONParse } from "../../../src/adapters/github/octokit-json";
import { octokitJson } from "../../../scripts/octokit-json.mjs";

const ANSWERS = [
  '{"id":123456789012345,"node_id":"I_kwDOA","title":"a \\"quoted\\" 42n title","labels":[{"name":"in-progress"}],"n":-3.5e2,"x":null,"t":true}',
  '{"data":{"repository":{"issue":{"number":7,"body":"digits 123n and 0123456789"}}},"errors":[]}',
  '["1n", "22nn", "-3n", 9007199254740990, 1.5, 0]',
  '"just a string"',
  "12",
  '{"__proto__":{"polluted":true},"a":1}',
];

describe("Octokit's JSON reader (ADR 0508)", () => {
  after(() => stop());

  it("an answer without 16 digits in a row reads as the library reads it", () => {
    for (const text of ANSWERS) assert.deepEqual(JSONParse(text), library(text), text);
  });

  it("an integer beyond 2^53 − 1 is still a BigInt, as the library makes it", () => {
    const text = '{"id":90071992547409931,"ok":12}';
    const read = JSONParse(text) as { id: unknown; ok: number };
    assert.equal(read.id, 90071992547409931n);
    assert.equal(read.ok, 12);
    assert.deepEqual(read, library(text));
  });

  it("what is not JSON throws, so Octokit keeps the text, as with the library", () => {
    for (const text of ["<html>rate limited</html>", "{", ""]) {
      assert.throws(() => library(text));
      assert.throws(() => JSONParse(text), SyntaxError);
    }
  });

  it("a reviver is the library's to apply", () => {
    const seen: string[] = [];
    const read = JSONParse('{"a":1}', (key, value: unknown) => {
      seen.push(key);
      return value;
    });
    assert.deepEqual(read, { a: 1 });
    assert.deepEqual(seen, ["a", ""]);
  });

  it("the build gives Octokit's request this reader, and the reader the library itself", async () => {
    const out = await build({
      stdin: { contents: 'export { request } from "@octokit/request"; export { JSONParse } from "json-with-bigint";', resolveDir: process.cwd(), loader: "ts" },
      bundle: true,
      write: false,
      platform: "node",
      format: "esm",
      logLevel: "silent",
      plugins: [octokitJson],
    });
    const code = out.outputFiles[0]!.text;
    assert.match(code, /LONG_DIGITS/, "Octokit's import of json-with-bigint was not redirected");
    assert.match(code, /serializeBigInts/, "the reader's own import of the library was redirected too");
  });
});
