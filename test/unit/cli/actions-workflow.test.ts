import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ZodError } from "zod";
import { actionsWorkflow, JOB_TIMEOUT_MINUTES } from "../../../src/app/actions-workflow";
import type { ActionsWorkflowOptions } from "../../../src/app/actions-workflow";

const ROOT = join(__dirname, "../../..");

interface Parsed {
  errors: string[];
  jobs: string[];
}
/** GitHub's own parser, in a tsx process of its own (test/support/parse-workflows.mts says why). */
function parseAll(texts: string[]): Parsed[] {
  const out = execFileSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "test/support/parse-workflows.mts")], {
    input: JSON.stringify(texts),
    encoding: "utf8",
  });
  return JSON.parse(out) as Parsed[];
}

const CLI = { cliFile: ".github/ticket-runner/ticket-runner-0.1.0-0123456789ab.cjs", cliSha256: "0123456789abcdef".repeat(4) };
const BASE = { cliVersion: "0.1.0", ...CLI };
/** Every option `init --actions` offers, at its edges. */
const CASES: Array<[string, ActionsWorkflowOptions]> = [
  ["the defaults", BASE],
  ["one Host, one Lane", { ...BASE, hosts: 1, lanes: 1 }],
  ["20 Hosts, 16 Lanes", { ...BASE, hosts: 20, lanes: 16 }],
  ["codex", { ...BASE, agent: "codex" }],
  ["gemini", { ...BASE, agent: "gemini" }],
  ["a custom schedule", { ...BASE, schedule: "5,35 1-23/2 * * 1-5" }],
  ["a custom ready label", { ...BASE, readyLabel: "agent: ready" }],
  ["named secrets", { ...BASE, agentSecrets: ["MY_KEY", "OTHER_KEY"], appIdVariable: "APP_ID", appKeySecret: "APP_KEY" }],
  ["no agent secrets", { ...BASE, agentSecrets: [] }],
  ["a prerelease CLI", { cliVersion: "1.2.3-rc.1", ...CLI }],
];

describe("the Actions workflow init --actions writes", () => {
  it("passes GitHub's workflow parser for every option, and the parser does catch a broken one", function () {
    this.timeout(60_000);
    const broken = actionsWorkflow(BASE).replace(
      "runs-on: ubuntu-latest\n    timeout-minutes: 5",
      "runs-on: ubuntu-latest\n    timeout-minutes: ${{ bogus.value }}",
    );
    assert.notEqual(broken, actionsWorkflow(BASE));
    const parsed = parseAll([...CASES.map(([, options]) => actionsWorkflow(options)), broken]);
    CASES.forEach(([name], i) => {
      assert.deepEqual(parsed[i]!.errors, [], name);
      assert.deepEqual(parsed[i]!.jobs, ["plan", "host"], name);
    });
    assert.notEqual(parsed[CASES.length]!.errors.length, 0, "the parser reported nothing for a broken workflow");
  });

  it("keeps the job below the runner's 6 h limit, with only read permission for its own token", () => {
    const yaml = actionsWorkflow(BASE);
    assert.ok(JOB_TIMEOUT_MINUTES < 360);
    assert.match(yaml, new RegExp(`timeout-minutes: ${JOB_TIMEOUT_MINUTES}\\n`));
    assert.match(yaml, /\npermissions:\n {2}contents: read\n\n/);
    assert.match(yaml, /persist-credentials: false/);
    assert.match(yaml, /ANTHROPIC_API_KEY: \$\{\{ secrets\.ANTHROPIC_API_KEY \}\}/);
  });

  it("passes event text through env, never into a script", () => {
    const yaml = actionsWorkflow(BASE);
    const eventLines = yaml.split("\n").filter((l) => /\$\{\{[^}]*(github\.event\.|inputs\.)/.test(l));
    assert.ok(eventLines.length >= 4);
    for (const line of eventLines) assert.match(line, /^\s+([A-Z_]+: \$\{\{ [a-z.]+ \}\}|if: ".*")$/, line);
  });

  it("refuses options that could break out of the YAML, naming the option", () => {
    const bad: Array<[string, ActionsWorkflowOptions]> = [
      ["schedule", { ...BASE, schedule: '* * * * *"\n  push:' }],
      ["readyLabel", { ...BASE, readyLabel: "x' || true || '" }],
      ["agentSecrets", { ...BASE, agentSecrets: ["KEY }}\n"] }],
      ["hosts", { ...BASE, hosts: 21 }],
      ["cliVersion", { ...CLI, cliVersion: "latest; rm -rf /" }],
      ["cliFile", { ...BASE, cliFile: '../../etc/passwd" ; curl x' }],
      ["cliSha256", { ...BASE, cliSha256: "abc  other-file" }],
    ];
    for (const [key, options] of bad) {
      assert.throws(
        () => actionsWorkflow(options),
        (e: unknown) => e instanceof ZodError && e.issues.some((i) => i.path[0] === key),
        key,
      );
    }
  });
});
