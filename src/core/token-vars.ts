/** The variables that carry the Run's GitHub token: kept from the agent (unless passGitHubToken) and always from the Checks. */
export const GITHUB_TOKEN_VARS = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "TICKET_RUNNER_TOKEN",
  "TICKET_RUNNER_SANDBOX_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
] as const;
