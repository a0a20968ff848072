import assert from "node:assert/strict";
import { readMergeRefusal } from "../../../src/adapters/github/merge-refusal";

// GitHub's 405 answers to "Merge a pull request" (links in src/adapters/github/merge-refusal.ts).
describe("GitHub's merge refusals, read into a rule and a fix", () => {
  it("required approving reviews (one, or several)", () => {
    const one = readMergeRefusal("At least 1 approving review is required by reviewers with write access.", 7, "main");
    assert.equal(one?.reason, "required-reviews");
    assert.match(one?.cause ?? "", /the rules of `main` say: At least 1 approving review is required/);
    assert.match(one?.fix ?? "", /approves pull request #7, then merges it/);
    assert.equal(
      readMergeRefusal("Repository rule violations found\n\nAt least 2 approving reviews are required by reviewers with write access.\n\n", 7, "main")?.reason,
      "required-reviews",
    );
  });

  it("a required status check that is expected or failing", () => {
    const r = readMergeRefusal('Required status check "lint" is expected.', 3, "trunk");
    assert.equal(r?.reason, "required-checks");
    assert.match(r?.cause ?? "", /"lint", which has not reported/);
    assert.match(readMergeRefusal('Required status check "test" is failing.', 3, "trunk")?.cause ?? "", /"test", which fails/);
  });

  it("a merge method the repository does not allow", () => {
    assert.equal(readMergeRefusal("Squash merges are not allowed on this repository.", 1, "main")?.reason, "merge-method");
  });

  it("a linear history on the base refuses a merge commit: squash or rebase instead", () => {
    const r = readMergeRefusal("This branch must not contain merge commits.", 4, "main");
    assert.equal(r?.reason, "merge-method");
    assert.match(r?.cause ?? "", /require a linear history/);
    assert.match(r?.fix ?? "", /"method": "squash"/);
  });

  it("a base that requires a merge queue: the way through the queue, not a generic rule", () => {
    const r = readMergeRefusal("Changes must be made through the merge queue", 12, "main");
    assert.equal(r?.reason, "merge-queue");
    assert.match(r?.cause ?? "", /`main` requires a merge queue/);
    assert.match(r?.fix ?? "", /gh pr merge 12 --auto/);
  });

  it("anything else is no refusal it can name", () => {
    assert.equal(readMergeRefusal("Pull Request is not mergeable", 1, "main"), undefined);
  });
});
