import { strict as assert } from "node:assert";
import { redactSecrets, secretEnv } from "../../../src/core/redact";

describe("secretEnv (the variables redactSecrets reads, not a copy of the whole environment)", () => {
  const env = { PATH: "/usr/bin", HOME: "/home/ana", GH_TOKEN: "gh-secret-value", ANTHROPIC_API_KEY: "anthropic-secret", TICKET_RUNNER_TOKEN: "from-env-123" };

  it("keeps the secret-bearing variables only, and the token given wins over the environment's", () => {
    const picked = secretEnv(env, "run-token-456");
    assert.equal(picked.PATH, undefined);
    assert.equal(picked.HOME, undefined);
    assert.equal(picked.GH_TOKEN, "gh-secret-value");
    assert.equal(picked.TICKET_RUNNER_TOKEN, "run-token-456");
    assert.equal(secretEnv(env).TICKET_RUNNER_TOKEN, "from-env-123");
  });

  it("masks what the whole environment would have masked", () => {
    const text = "a gh-secret-value, an anthropic-secret, from-env-123 and run-token-456 in /home/ana";
    assert.equal(redactSecrets(text, secretEnv(env, "run-token-456")), redactSecrets(text, { ...env, TICKET_RUNNER_TOKEN: "run-token-456" }));
    assert.equal(redactSecrets(text, secretEnv(env, "run-token-456")), "a ***, an ***, from-env-123 and *** in /home/ana");
  });
});
