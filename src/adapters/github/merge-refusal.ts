/**
 * Why GitHub refused to merge a pull request (405), read once from GitHub's words into a reason, a
 * cause and a fix (ADR 0241). The words follow GitHub's answers for a protected branch or a ruleset
 * on the base, and for a merge method the repository does not allow:
 * - "At least 1 approving review is required by reviewers with write access."
 *   (https://docs.github.com/repositories/configuring-branches-and-merges-in-your-repository/managing-protected-branches/about-protected-branches#require-pull-request-reviews-before-merging);
 * - `Required status check "<name>" is expected.` (…/about-protected-branches#require-status-checks-before-merging);
 * - "Squash merges are not allowed on this repository." (https://docs.github.com/rest/pulls/pulls#merge-a-pull-request, 405);
 * - "This branch must not contain merge commits." (…/about-protected-branches#require-linear-history);
 * - "Changes must be made through the merge queue" (a base with "Require merge queue",
 *   …/managing-a-merge-queue; the words as GitHub's merge API answers them).
 */
import type { MergeRefusal } from "../../ports/tracker";

const REVIEWS = /At least (\d+) approving reviews? (?:is|are) required[^.\n]*/i;
const CHECK = /Required status check "([^"]+)" is (expected|failing)/i;
const METHOD = /(Merge commits|Squash merges|Rebase merges) are not allowed on this repository/i;
const LINEAR = /must not contain merge commits/i;
const QUEUE = /must be made through the merge queue/i;
const RULES = /Repository rule violations found|protected branch|merge queue/i;

export function readMergeRefusal(message: string, pull: number, base: string): MergeRefusal | undefined {
  const reviews = REVIEWS.exec(message);
  if (reviews) {
    return {
      reason: "required-reviews",
      cause: `the rules of \`${base}\` say: ${reviews[0].trim()}`,
      fix: `a person with write access reviews and approves pull request #${pull}, then merges it (the branch and the pull request are kept as they are); or a repository admin lets this token bypass the rule (Settings > Rules > Rulesets, or Settings > Branches: "Require approvals" on \`${base}\`)`,
    };
  }
  const check = CHECK.exec(message);
  if (check) {
    return {
      reason: "required-checks",
      cause: `the rules of \`${base}\` require the status check "${check[1]}", which ${check[2] === "failing" ? "fails" : "has not reported"} on the pull request's head`,
      fix: `make CI report a passing check named "${check[1]}" on pull requests into \`${base}\`, or remove it from the rule (Settings > Rules > Rulesets, or Settings > Branches: "Require status checks to pass"); then merge #${pull} by hand or start the ticket again`,
    };
  }
  const method = METHOD.exec(message);
  if (method) {
    return {
      reason: "merge-method",
      cause: `${method[1]} are not allowed on this repository`,
      fix: `set "merge": { "method": … } in ticket-runner.json to a method the repository allows (Settings > General > Pull Requests), then start the ticket again`,
    };
  }
  if (LINEAR.test(message)) {
    return {
      reason: "merge-method",
      cause: `the rules of \`${base}\` require a linear history, so a merge commit may not land there`,
      fix: `set "merge": { "method": "squash" } (or "rebase") in ticket-runner.json, then start the ticket again`,
    };
  }
  if (QUEUE.test(message)) {
    return {
      reason: "merge-queue",
      cause: `\`${base}\` requires a merge queue, so pull requests reach it only through the queue, never through the merge API Ticket Runner uses`,
      fix: `add pull request #${pull} to the merge queue (its page: "Merge when ready", or \`gh pr merge ${pull} --auto\`), which merges it once the queue's checks pass; or a repository admin lets this token bypass the merge queue rule (Settings > Rules > Rulesets) so the next Run merges directly`,
    };
  }
  if (RULES.test(message)) {
    return {
      reason: "rule-violation",
      cause: `a rule of \`${base}\` refused the merge (${message
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean)
        .join("; ")
        .slice(0, 300)})`,
      fix: `read the rules of \`${base}\` (Settings > Rules > Rulesets, or Settings > Branches) and merge #${pull} by hand once they are met`,
    };
  }
  return undefined;
}
