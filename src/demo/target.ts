/**
 * The demo's Target on this machine: two sandbox users (the person running the demo, and a
 * teammate whose push to main makes ticket #4 need a conflict Stage), and a clone of demo/shop.
 * Tokens stay out of argv and out of the clone's config: git gets them through GIT_CONFIG_* env.
 */
import { existsSync, writeFileSync } from "node:fs";
import { cloneWithToken, pointOriginAt } from "../adapters/git/checkout";
import { SandboxAdmin } from "../sandbox/admin-client";
import { DEMO_OWNER, DEMO_REPO } from "../sandbox/seeds/demo-project";
import type { DemoPaths } from "./folder";
import type { DemoSandbox } from "./sandbox-child";

/** The person running the demo: the Run claims as this user. */
export const DEMO_USER = "newcomer";
/** Pushes to main while #4 is implemented (the demo agent's `conflict` behaviour). */
const DEMO_TEAMMATE = "teammate";

export interface DemoTarget {
  owner: string;
  repo: string;
  userToken: string;
  teammateToken: string;
  clone: string;
  workspaceFile: string;
  /** True when this start made the clone (a first run or --fresh). */
  cloned: boolean;
}

export async function prepareTarget(sandbox: DemoSandbox, paths: DemoPaths): Promise<DemoTarget> {
  const admin = new SandboxAdmin(sandbox.apiUrl, sandbox.adminToken);
  const full = `${DEMO_OWNER}/${DEMO_REPO}`;
  // addUser is idempotent: a re-run gets the same tokens back from the sandbox's data.
  const { token: userToken } = await admin.addUser({ login: DEMO_USER, repos: { [full]: "write" } });
  const { token: teammateToken } = await admin.addUser({ login: DEMO_TEAMMATE, repos: { [full]: "write" } });
  const url = sandbox.gitUrl(DEMO_OWNER, DEMO_REPO);
  let cloned = false;
  if (!existsSync(paths.clone)) {
    await cloneWithToken(url, paths.clone, userToken);
    cloned = true;
  } else {
    // The sandbox could not get its old port back: point the clone at the new one.
    await pointOriginAt(paths.clone, url);
  }
  // A workspace file, so the extension can add each ticket's worktree as a folder while it runs.
  writeFileSync(paths.workspaceFile, JSON.stringify({ folders: [{ path: paths.clone, name: "shop" }], settings: {} }, null, 2) + "\n");
  return { owner: DEMO_OWNER, repo: DEMO_REPO, userToken, teammateToken, clone: paths.clone, workspaceFile: paths.workspaceFile, cloned };
}

/** The environment every `ticket-runner` command and code-server get: the sandbox, the user, the demo's run root. */
export function demoEnv(base: NodeJS.ProcessEnv, sandbox: DemoSandbox, target: DemoTarget, paths: DemoPaths): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  // Whatever GitHub credentials the shell has must not reach the sandbox demo, or be used by it.
  for (const name of [
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "TICKET_RUNNER_SANDBOX_TOKEN",
    "TICKET_RUNNER_STAGE",
    "TICKET_RUNNER_DEMO_STATE",
  ])
    delete env[name];
  return {
    ...env,
    TICKET_RUNNER_API_URL: sandbox.apiUrl,
    TICKET_RUNNER_TOKEN: target.userToken,
    TICKET_RUNNER_RUN_ROOT: paths.runRoot,
    TICKET_RUNNER_DEMO_TEAMMATE_TOKEN: target.teammateToken,
  };
}
