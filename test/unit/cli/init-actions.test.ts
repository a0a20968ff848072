import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { actionsWorkflow, WORKFLOW_PATH } from "../../../src/cli/actions-workflow";
import { initActions } from "../../../src/cli/init-actions";
import { Refusal } from "../../../src/core/errors";
import { PRODUCT_VERSION } from "../../../src/core/version";

describe("ticket-runner init --actions", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "tr-init-actions-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (body: object) => writeFileSync(join(dir, "ticket-runner.json"), JSON.stringify({ checks: [["npm", "test"]], ...body }));

  it("writes the workflow from ticket-runner.json and the flags, then leaves it alone", () => {
    config({ lanes: 3, agent: { kind: "codex" }, lockScope: "host" });
    const first = initActions(dir, { hosts: 4, schedule: "0 * * * *" });
    assert.match(first.join("\n"), /created/);
    const text = readFileSync(join(dir, WORKFLOW_PATH), "utf8");
    assert.equal(text, actionsWorkflow({ hosts: 4, schedule: "0 * * * *", lanes: 3, agent: "codex", cliVersion: PRODUCT_VERSION }));
    assert.match(initActions(dir, { hosts: 4, schedule: "0 * * * *" }).join("\n"), /already there, as init writes it/);
    writeFileSync(join(dir, WORKFLOW_PATH), "# mine\n");
    assert.match(initActions(dir, {}).join("\n"), /already there and different; left as it is/);
    assert.equal(readFileSync(join(dir, WORKFLOW_PATH), "utf8"), "# mine\n");
  });

  it("says lockScope must be host, and refuses an agent it cannot install or a bad cron, naming the flag", () => {
    config({ agent: { kind: "claude" } });
    assert.match(initActions(dir, {}).join("\n"), /"lockScope": "host"/);
    rmSync(join(dir, WORKFLOW_PATH));
    assert.throws(() => initActions(dir, { schedule: "every hour" }), (e: unknown) => e instanceof Refusal && /--schedule/.test(e.message));
    config({ agent: { kind: "demo" } });
    assert.throws(() => initActions(dir, {}), (e: unknown) => e instanceof Refusal && /agent\.kind is "demo"/.test(e.message));
  });
});
