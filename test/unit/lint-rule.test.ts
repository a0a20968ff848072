import { strict as assert } from "node:assert";
import * as path from "node:path";
import { ESLint } from "eslint";

// Proves the layer rule is live: a `vscode` import inside src/core must be rejected.
describe("lint: the core stays free of vscode", () => {
  it("rejects an import of vscode placed in the core", async function () {
    this.timeout(60_000);
    const eslint = new ESLint({ cwd: path.resolve(__dirname, "../.."), ignore: false });
    const [result] = await eslint.lintFiles(["test/fixtures/lint/core/imports-vscode.ts"]);
    assert.ok(result, "eslint returned no result for the fixture");
    const hits = result.messages.filter((m) => m.ruleId === "no-restricted-imports");
    assert.equal(hits.length, 1, `expected one no-restricted-imports error, got ${JSON.stringify(result.messages)}`);
    assert.match(hits[0]!.message, /src\/core must not touch VS Code/);
  });
});
