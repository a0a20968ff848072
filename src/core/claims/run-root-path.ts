/** Where run directories live. Pure: the home directory and environment are passed in. */
import { join } from "node:path";
import type { RepoRef } from "../../ports/tracker";

const RUN_ROOT_ENV = "TICKET_RUNNER_RUN_ROOT";

export function defaultRunRoot(env: Record<string, string | undefined>, home: string): string {
  const override = env[RUN_ROOT_ENV];
  return override && override.trim() ? override : join(home, ".ticket-runner", "runs");
}

export function repoDirName(repo: RepoRef): string {
  return `${repo.owner}__${repo.repo}`;
}

export function runDirFor(root: string, repo: RepoRef, ticket: number): string {
  return join(root, repoDirName(repo), `issue-${ticket}`);
}
