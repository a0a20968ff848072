/**
 * Issue text cannot close other issues or ping people: an outsider writes "fixes #1" and "@eve" into
 * an issue a writer then labels, and the agent echoes them (its evidence and its PR title). The Run
 * merges the ticket; the sandbox closes issues by GitHub's closing keywords in the PR body and the
 * messages that land (pull-ops.ts). Only the ticket itself may close. Real CLI, real sandbox. ADR 0161.
 */
import { strict as assert } from "node:assert";
import { closingReferences } from "../../../src/sandbox/pull-ops";
import { sandboxOctokit } from "../../support/board-seed";
import { demoTicketBody } from "../../support/run-seed";
import { RunWorld } from "../../integration/run/run-helpers";
import { record } from "../support/figures";

describe("reliability: issue and agent text cannot close other issues or mention people", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("an outsider's 'fixes #1' in a merged ticket leaves #1 open; only the ticket closes", async () => {
    w = await RunWorld.make();
    const { owner, repo } = w.target;
    const { data: victim } = await w.octokit.rest.issues.create({ owner, repo, title: "An unrelated bug", body: "Still open." });
    const { token } = await w.sandbox.admin.addUser({ login: "mallory", repos: { [`${owner}/${repo}`]: "read" } });
    const hostile = [
      `fixes #${victim.number}`,
      `Closes: ${owner}/${repo}#${victim.number}`,
      `resolved https://github.com/${owner}/${repo}/issues/${victim.number}`,
      "@eve",
    ];
    const ticket = {
      title: "Add the greeting",
      criteria: [[`\`src/greet.js\` says hello; ${hostile.join(", ")}`, "src/greet.js", `fixes #${victim.number} @eve`]] as [string, string, string][],
      files: { "src/greet.js": `// fixes #${victim.number} @eve\nmodule.exports = { greet: () => "hello" };\n` },
    };
    const body = demoTicketBody(ticket).replace('"files"', `"title": "Add the greeting, fixes #${victim.number} for @eve",\n  "files"`);
    const { data: issue } = await sandboxOctokit(w.sandbox.apiUrl, token).rest.issues.create({ owner, repo, title: ticket.title, body });
    await w.octokit.rest.issues.addLabels({ owner, repo, issue_number: issue.number, labels: ["ready-for-agent"] });

    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 0, r.err.join("\n"));
    assert.equal((await w.issue(issue.number)).state, "closed");
    assert.equal((await w.issue(victim.number)).state, "open", "the outsider's closing keyword closed another issue");

    const [pr] = await w.pulls();
    assert.equal(pr!.merged_at !== null, true);
    const texts = [
      { where: "PR body", text: pr!.body ?? "" },
      { where: "PR title", text: pr!.title },
      ...(await w.comments(issue.number)).map((c) => ({ where: `comment ${c.id}`, text: c.body })),
    ];
    const repoRef = { owner, name: repo };
    for (const t of texts) {
      const closes = closingReferences(t.text, repoRef);
      assert.ok(
        closes.every((n) => n === issue.number),
        `${t.where} closes ${closes.join(", ")}: ${t.text}`,
      );
      assert.ok(!/(^|[^\w`])@eve/.test(t.text), `${t.where} mentions @eve: ${t.text}`);
    }
    assert.deepEqual(closingReferences(pr!.body ?? "", repoRef), [issue.number], "the ticket's own Closes line stays live");
    record("text.closing-keywords", {
      what: "issue and agent text closes no other issue and mentions nobody",
      test: "test/reliability/quick/closing-keywords.test.ts",
      inputs: hostile.length * texts.length,
      losses: 0,
    });
  });
});
