/**
 * github.com refuses a push that creates or changes `.github/workflows/*` when the token lacks the
 * `workflow` scope (VS Code's GitHub sign-in asks for `repo` only). The sandbox refuses it the same
 * way (src/sandbox/push-rules.ts); the Run hands the ticket off saying so, with the fix.
 */
import { strict as assert } from "node:assert";
import { HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import type { DemoTicket } from "../../support/run-seed";
import { RunWorld } from "./run-helpers";

const workflowTicket: DemoTicket = {
  title: "Run the tests in CI",
  criteria: [["`.github/workflows/ci.yml` runs `npm test`", ".github/workflows/ci.yml", "npm test"]],
  files: {
    ".github/workflows/ci.yml":
      "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm test\n",
  },
};

describe("run (integration): a token without the workflow scope", function () {
  this.timeout(180_000);
  let w: RunWorld;
  before(async () => {
    w = await RunWorld.make();
    // The same user and token, now with the scopes VS Code's sign-in grants.
    await w.sandbox.admin.addUser({ login: "ana", scopes: ["repo", "read:user"] });
  });
  after(async () => w?.dispose());

  it("hands the ticket off naming the workflow file, the missing scope and how to get it", async () => {
    const [n] = await w.tickets([workflowTicket]);
    const r = await w.cliDone(["run"]);
    const said = `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;
    assert.equal(r.code, 1, said);
    const issue = await w.issue(n!);
    assert.deepEqual(issue.labelNames, ["ready-for-human"], said);
    const handoff = (await w.comments(n!)).find((c) => c.body.startsWith(HANDOFF_MARKER));
    assert.ok(handoff, said);
    // The comment shows the failure as escaped text (it may quote the remote); read it as a person would.
    const text = handoff.body.replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, "$1");
    assert.match(text, /Failed at \*\*push\*\*/);
    assert.match(text, /changes `\.github\/workflows\/ci\.yml` and the token lacks the `workflow` scope/);
    assert.match(text, /gh auth refresh -s workflow/);
    assert.deepEqual(
      (await w.branches()).filter((b) => b.startsWith("agent/")),
      [],
      "nothing reached the remote",
    );
  });
});
