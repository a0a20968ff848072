import assert from "node:assert/strict";
import { isLoopback, isRetrySafe } from "../../../src/adapters/github/client";
import { parseArgs } from "../../../src/cli/target-options";
import { Refusal } from "../../../src/core/errors";

describe("claims: CLI target options and the client's retry rule", () => {
  it("parses options strictly: an unknown option or a missing value is refused", () => {
    const a = parseArgs(["12", "--take-over", "--repo", "acme/widgets", "--run-dir=/tmp/x"], { flags: ["--take-over"], values: ["--run-dir"] });
    assert.deepEqual(a.positionals, ["12"]);
    assert.ok(a.flags.has("--take-over"));
    assert.equal(a.values.get("--repo"), "acme/widgets");
    assert.equal(a.values.get("--run-dir"), "/tmp/x");
    assert.throws(
      () => parseArgs(["--force"], {}),
      (e: unknown) => e instanceof Refusal && e.reason === "bad-input",
    );
    assert.throws(
      () => parseArgs(["--repo"], {}),
      (e: unknown) => e instanceof Refusal && /needs a value/.test(e.message),
    );
  });

  it("retries only requests that are safe to send twice", () => {
    assert.equal(isRetrySafe({ method: "GET", url: "/repos/a/b" }), true);
    assert.equal(isRetrySafe({ method: "PATCH", url: "/repos/a/b/issues/comments/1" }), true);
    assert.equal(isRetrySafe({ method: "POST", url: "/repos/a/b/issues/1/comments" }), false);
    assert.equal(isRetrySafe({ method: "POST", url: "/graphql", query: "  query Q { viewer { login } }" }), true);
    assert.equal(isRetrySafe({ method: "POST", url: "/graphql", query: "mutation M { addComment }" }), false);
    assert.equal(isRetrySafe({ method: "POST", url: "/graphql" }), false);
    assert.equal(isLoopback("http://127.0.0.1:9"), true);
    assert.equal(isLoopback("https://api.github.com"), false);
  });
});
