/**
 * GitHub's reasons for refusing a push, read from what git relayed (`remote:` lines and the ref's
 * rejection reason), turned into a typed refusal with its fix. Git's and GitHub's words are the
 * only signal here, so this is the one place that reads them. Each pattern follows GitHub's
 * documented answer:
 * - workflow scope: https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps
 * - push protection (GH009 / GH013 "Push cannot contain secrets"):
 *   https://docs.github.com/code-security/secret-scanning/working-with-secret-scanning-and-push-protection/working-with-push-protection-from-the-command-line
 * - rulesets and protected branches (GH006 / GH013 "Repository rule violations"):
 *   https://docs.github.com/repositories/configuring-branches-and-merges-in-your-repository/managing-rulesets/about-rulesets
 */
import type { PushRefusal } from "../../ports/workspace";

const WORKFLOW =
  /refusing to allow an? (?:OAuth App|Personal Access Token|GitHub App|[A-Za-z ]+) to create or update workflow `([^`]+)` without `workflows?` (?:scope|permission)/;
const SECRET = /(?:GH009|GH013)[^\n]*|Push cannot contain secrets/;
const RULES = /GH006: Protected branch update failed|GH013: Repository rule violations found for (\S+)/;

/**
 * `record`: the branch is one of Ticket Runner's own records (the Run lock), never a ticket's: the
 * fix then is to leave it out of the rule, not to let an agent's branch through.
 */
export function readPushRefusal(output: string, branch: string, kind: "lane" | "record" = "lane"): PushRefusal | undefined {
  const workflow = WORKFLOW.exec(output);
  if (workflow) {
    return {
      reason: "workflow-scope",
      cause: `GitHub refused it because it changes \`${workflow[1]}\` and the token lacks the \`workflow\` scope (VS Code's GitHub sign-in asks for \`repo\` only)`,
      fix: "use a token that may change workflows: a classic token with the `workflow` scope (`gh auth refresh -s workflow`), or a fine-grained token with Workflows: read and write; set it as TICKET_RUNNER_TOKEN, then start the ticket again",
    };
  }
  if (/Push cannot contain secrets|GITHUB PUSH PROTECTION|secret scanning/i.test(output) && SECRET.test(output)) {
    return {
      reason: "push-protection",
      cause: "GitHub's secret scanning push protection found a secret in its commits",
      fix: `remove the secret from the commits on \`${branch}\` (rewrite them; a later commit that deletes it is not enough), rotate the secret, then start the ticket again`,
    };
  }
  const rules = RULES.exec(output);
  if (rules) {
    const said = output
      .split("\n")
      .map((l) => l.replace(/^remote:\s*/, "").trim())
      .filter((l) => /^- |Cannot|must|required|Changes must/i.test(l))
      .slice(0, 5)
      .join("; ");
    const cause = `a branch protection rule or ruleset of the repository refused it${said ? ` (${said})` : ""}`;
    if (kind === "record") {
      return {
        reason: "rule-violation",
        cause,
        fix: `leave \`${branch}\` out of that rule (Settings > Rules > Rulesets: add it to the ruleset's excluded branches, or narrow the branch protection rule): Ticket Runner keeps its Run lock there, written by every Run; then run again`,
      };
    }
    if (/Cannot force-push/i.test(output)) {
      return {
        reason: "rule-violation",
        cause,
        fix: `let this token force-push \`agent/*\` branches: a Landing rebases the ticket's branch onto the fresh base and pushes it again (with a lease, never over someone else's commits). Add \`agent/**\` to the excluded branches of the ruleset that blocks force pushes (Settings > Rules > Rulesets), or allow force pushes in the branch protection rule that matches it; then start the ticket again`,
      };
    }
    return {
      reason: "rule-violation",
      cause,
      fix: `ask a repository admin to let this token push to \`${branch}\` (Settings > Rules > Rulesets, or the branch protection rule for \`agent/*\`), then start the ticket again`,
    };
  }
  return undefined;
}
