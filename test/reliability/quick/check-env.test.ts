/**
 * Secrets, the Checks' side. The Checks run the project's own commands, on the branch the agent
 * wrote: `npm test` runs whatever test files and scripts the agent (steered, perhaps, by an issue
 * author) put there. So the Checks must not get the GitHub token the agent is denied, or an issue
 * could have the agent write a test that sends it away. Real git Workspace, real child process.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GITHUB_TOKEN_VARS } from "../../../src/adapters/agent/agent-env";
import { configSchema } from "../../../src/core/schemas/config";
import { makeRemote, type RemoteFixture } from "../../support/git-fixtures";
import { workspaceOn } from "../../integration/workspace/support/workspace-fixture";
import { record } from "../support/figures";

const CANARY = "cnry-check-env-0123456789abcdef";
/** The Run's other secrets, which the Checks have no business with. */
const OTHER_SECRETS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "MY_BOT_TOKEN"];

describe("reliability: the Checks' environment", function () {
  this.timeout(60_000);
  let fx: RemoteFixture;
  const saved = new Map<string, string | undefined>();

  before(async () => {
    fx = await makeRemote();
    for (const v of [...GITHUB_TOKEN_VARS, ...OTHER_SECRETS, "JAVA_HOME", "MYAPP_MODE"]) {
      saved.set(v, process.env[v]);
      process.env[v] = v.startsWith("JAVA") || v.startsWith("MYAPP") ? "kept" : CANARY;
    }
  });
  after(async () => {
    for (const [v, value] of saved) {
      if (value === undefined) delete process.env[v];
      else process.env[v] = value;
    }
    await fx.cleanup();
  });

  it("a Check gets an allow-listed environment: none of the Run's other secrets; checkEnv adds names and prefixes, never a GitHub token", async () => {
    // Fails on the code before this test: ANTHROPIC_API_KEY and the rest reached the Check.
    const ws = workspaceOn(await fx.clone("allow"), { checkEnvNames: ["JAVA_HOME", "MYAPP_*"] });
    await ws.fetchBase("main");
    const lane = await ws.cutLane(2, ws.branchFor(2, "check env allow"), "main");
    const out = join(fx.root, "check-env-allow.json");
    const dump = `require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.env))`;
    const result = await ws.runCheck(lane, [process.execPath, "-e", dump], 30_000);
    assert.equal(result.exitCode, 0, result.output);
    const env = JSON.parse(readFileSync(out, "utf8")) as Record<string, string>;
    for (const v of OTHER_SECRETS) assert.equal(env[v], undefined, `${v} reached the Check`);
    assert.ok(!JSON.stringify(env).includes(CANARY), "a secret reached the Check under another name");
    assert.equal(env.JAVA_HOME, "kept");
    assert.equal(env.MYAPP_MODE, "kept");
    assert.ok(env.PATH && env.HOME, "PATH and HOME are kept");
    for (const bad of ["GITHUB_TOKEN", "GH_*", "TICKET_RUNNER_*", "A B"]) assert.equal(configSchema.safeParse({ checkEnv: [bad] }).success, false, bad);
    record("secrets.check-env-allow", {
      what: "the Checks get only allow-listed variables (no ANTHROPIC_API_KEY, cloud or npm keys)",
      test: "test/reliability/quick/check-env.test.ts",
      inputs: OTHER_SECRETS.length + 4,
      losses: 0,
    });
  });

  it("a Check (code the agent may have written) runs without any GitHub token of the Run", async () => {
    const ws = workspaceOn(await fx.clone("target"));
    await ws.fetchBase("main");
    const lane = await ws.cutLane(1, ws.branchFor(1, "check env"), "main");
    const out = join(fx.root, "check-env.json");
    const dump = `require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.env))`;
    const result = await ws.runCheck(lane, [process.execPath, "-e", dump], 30_000);
    assert.equal(result.exitCode, 0, result.output);
    const env = JSON.parse(readFileSync(out, "utf8")) as Record<string, string>;
    for (const v of GITHUB_TOKEN_VARS) assert.equal(env[v], undefined, `${v} reached the Check`);
    assert.ok(!JSON.stringify(env).includes(CANARY), "the token reached the Check under another name");
    assert.ok(env.PATH, "the rest of the environment is kept");
    record("secrets.check-env", {
      what: "the Checks' env has no GitHub token",
      test: "test/reliability/quick/check-env.test.ts",
      inputs: GITHUB_TOKEN_VARS.length,
      losses: 0,
    });
  });
});
