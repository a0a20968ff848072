import assert from "node:assert/strict";
import { readPushRefusal } from "../../../src/adapters/git/push-refusal";

// Shapes as GitHub's documentation shows them (links in src/adapters/git/push-refusal.ts).
describe("GitHub's push refusals, read into a reason and a fix", () => {
  it("a workflow file without the workflow scope (OAuth App and personal token wording)", () => {
    for (const who of ["an OAuth App", "a Personal Access Token"]) {
      const out = `To https://github.com/acme/shop.git\n ! [remote rejected] agent/1-ci -> agent/1-ci (refusing to allow ${who} to create or update workflow \`.github/workflows/ci.yml\` without \`workflow\` scope)\nerror: failed to push some refs`;
      const r = readPushRefusal(out, "agent/1-ci");
      assert.equal(r?.reason, "workflow-scope");
      assert.match(r?.cause ?? "", /`\.github\/workflows\/ci\.yml`/);
      assert.match(r?.fix ?? "", /workflow/);
    }
  });

  it("secret scanning push protection (GH013)", () => {
    const out = [
      "remote: error: GH013: Repository rule violations found for refs/heads/agent/2-x.",
      "remote: - GITHUB PUSH PROTECTION",
      "remote:   Resolve the following violations before pushing again",
      "remote:   - Push cannot contain secrets",
      " ! [remote rejected] agent/2-x -> agent/2-x (push declined due to repository rule violations)",
    ].join("\n");
    assert.equal(readPushRefusal(out, "agent/2-x")?.reason, "push-protection");
  });

  it("a ruleset or protected branch (GH013 / GH006), quoting the rule", () => {
    const out =
      "remote: error: GH013: Repository rule violations found for refs/heads/ticket-runner/lock.\nremote: - Cannot force-push to this branch\n ! [remote rejected] HEAD -> ticket-runner/lock (push declined due to repository rule violations)";
    const r = readPushRefusal(out, "ticket-runner/lock");
    assert.equal(r?.reason, "rule-violation");
    assert.match(r?.cause ?? "", /Cannot force-push to this branch/);
    assert.equal(readPushRefusal("remote: error: GH006: Protected branch update failed for refs/heads/main.", "main")?.reason, "rule-violation");
  });

  it("force pushes blocked on an agent branch name the exclusion to add; the Run lock's refusal says to leave it out of the rule", () => {
    const out =
      "remote: error: GH013: Repository rule violations found for refs/heads/agent/3-x.\nremote: - Cannot force-push to this branch\n ! [remote rejected] agent/3-x -> agent/3-x (push declined due to repository rule violations)";
    assert.match(readPushRefusal(out, "agent/3-x")?.fix ?? "", /Add `agent\/\*\*` to the excluded branches of the ruleset that blocks force pushes/);
    const lock =
      "remote: error: GH013: Repository rule violations found for refs/heads/ticket-runner/lock.\nremote: - Changes must be made through a pull request.";
    assert.match(readPushRefusal(lock, "ticket-runner/lock", "record")?.fix ?? "", /leave `ticket-runner\/lock` out of that rule/);
  });

  it("anything else is no refusal it can name", () => {
    assert.equal(readPushRefusal(" ! [rejected] agent/1 -> agent/1 (stale info)", "agent/1"), undefined);
  });
});
