/**
 * GitHub starts no workflow run for events caused by a workflow's own GITHUB_TOKEN (only
 * workflow_dispatch and repository_dispatch are exempt), so a pull request a Run opens and pushes
 * with it never gets CI, and the CI Stage would wait out its grace for checks that cannot come.
 * That token acts as the `github-actions[bot]` user; a Run that finds itself acting as it refuses
 * before it takes the lock or claims anything (ADR 0281, docs/actions.md).
 */
import { Refusal } from "../errors";

/** The identity GitHub gives Actions' own GITHUB_TOKEN (GraphQL `viewer`, comment and commit authors). */
const ACTIONS_BOT = "github-actions[bot]";

function isActionsToken(viewer: string): boolean {
  return viewer.toLowerCase() === ACTIONS_BOT;
}

export function refuseActionsToken(viewer: string): void {
  if (!isActionsToken(viewer)) return;
  throw new Refusal(
    "actions-token",
    `The token acts as ${ACTIONS_BOT}: it is the workflow's own GITHUB_TOKEN, and GitHub starts no workflow for what it pushes, so the pull requests this Run opened would never get CI. Set TICKET_RUNNER_TOKEN to a GitHub App installation token (actions/create-github-app-token with the variable TICKET_RUNNER_APP_ID and the secret TICKET_RUNNER_APP_PRIVATE_KEY, as \`ticket-runner init --actions\` writes it) or to a personal access token kept in a repository secret, then run \`ticket-runner run\` again (docs/actions.md).`,
    {
      next: "ticket-runner run",
      link: "https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication#using-the-github_token-in-a-workflow",
    },
  );
}
