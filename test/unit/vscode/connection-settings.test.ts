import * as assert from "node:assert/strict";
import { resolveConnectionSettings, GITHUB_API_URL } from "../../../src/vscode/connection-settings";
import { Refusal } from "../../../src/core/errors";

describe("resolveConnectionSettings", () => {
  it("defaults to api.github.com and VS Code's github sign-in", () => {
    const s = resolveConnectionSettings(undefined, {});
    assert.equal(s.apiUrl, GITHUB_API_URL);
    assert.equal(s.apiUrlSource, "default");
    assert.equal(s.authProviderId, "github");
    assert.equal(s.envToken, undefined);
  });

  it("prefers the setting, then TICKET_RUNNER_API_URL, and drops a trailing slash", () => {
    assert.equal(
      resolveConnectionSettings(" https://ghe.example/api/v3/ ", { TICKET_RUNNER_API_URL: "http://127.0.0.1:9" }).apiUrl,
      "https://ghe.example/api/v3",
    );
    const env = resolveConnectionSettings("", { TICKET_RUNNER_API_URL: "http://127.0.0.1:9/" });
    assert.equal(env.apiUrl, "http://127.0.0.1:9");
    assert.equal(env.apiUrlSource, "TICKET_RUNNER_API_URL");
    assert.equal(env.authProviderId, "github-enterprise");
  });

  it("uses TICKET_RUNNER_TOKEN for any API", () => {
    const s = resolveConnectionSettings(undefined, { TICKET_RUNNER_TOKEN: "trsb_abc", GITHUB_TOKEN: "ghp_x" });
    assert.deepEqual(s.envToken, { name: "TICKET_RUNNER_TOKEN", value: "trsb_abc" });
  });

  it("uses GITHUB_TOKEN only for an API other than github.com", () => {
    assert.equal(resolveConnectionSettings(undefined, { GITHUB_TOKEN: "ghp_x" }).envToken, undefined);
    assert.deepEqual(resolveConnectionSettings("http://127.0.0.1:9", { GITHUB_TOKEN: "ghp_x" }).envToken, { name: "GITHUB_TOKEN", value: "ghp_x" });
  });

  it("refuses a malformed URL, a non-http scheme and credentials in the URL, naming the setting", () => {
    for (const bad of ["not a url", "ftp://x", "https://user:secret@ghe.example"]) {
      assert.throws(
        () => resolveConnectionSettings(bad, {}),
        (e: unknown) => e instanceof Refusal && e.reason === "bad-config" && e.message.includes("ticketRunner.apiUrl") && !e.message.includes("secret@"),
        bad,
      );
    }
    assert.throws(() => resolveConnectionSettings(undefined, { TICKET_RUNNER_API_URL: "nope" }), /TICKET_RUNNER_API_URL is not a URL/);
  });
});
