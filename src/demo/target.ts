/**
 * The demo's Target on this machine: two sandbox users (the person running the demo, and a
 * teammate whose push to main makes ticket #4 need a conflict Stage), and a clone of demo/shop.
 * Tokens stay out of argv and out of the clone's config: git gets them through GIT_CONFIG_* env.
 */
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { redactSecrets } from "../core/redact";
import { SandboxAdmin } from "../sandbox/admin-client";
import { DEMO_OWNER, DEMO_REPO } from "../sandbox/seeds/demo-project";
import type { DemoPaths } from "./folder";
import type { DemoSandbox } from "./sandbox-child";

/** The person running the demo: the Run claims as this user. */
export const DEMO_USER = "newcomer";
/** Pushes to main while #4 is implemented (the demo agent's `conflict` behaviour). */
export const DEMO_TEAMMATE = "teammate";

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

function git(cwd: string, args: string[], token: string | null): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" };
  if (token) {
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = "http.extraHeader";
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  }
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env, encoding: "utf8" }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout.trim());
      reject(new Error(redactSecrets(`git ${args.join(" ")} failed: ${stderr.trim() || error.message}`, { TICKET_RUNNER_TOKEN: token ?? undefined })));
    });
  });
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
    await git(dirname(paths.clone), ["clone", "-q", url, paths.clone], userToken);
    cloned = true;
  } else if ((await git(paths.clone, ["remote", "get-url", "origin"], null)) !== url) {
    // The sandbox could not get its old port back: point the clone at the new one.
    await git(paths.clone, ["remote", "set-url", "origin", url], null);
  }
  // A workspace file, so the extension can add each ticket's worktree as a folder while it runs.
  writeFileSync(paths.workspaceFile, JSON.stringify({ folders: [{ path: paths.clone, name: "shop" }], settings: {} }, null, 2) + "\n");
  return { owner: DEMO_OWNER, repo: DEMO_REPO, userToken, teammateToken, clone: paths.clone, workspaceFile: paths.workspaceFile, cloned };
}

/** The environment every `ticket-runner` command and code-server get: the sandbox, the user, the demo's run root. */
export function demoEnv(base: NodeJS.ProcessEnv, sandbox: DemoSandbox, target: DemoTarget, paths: DemoPaths): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  // Whatever GitHub credentials the shell has must not reach the sandbox demo, or be used by it.
  for (const name of ["GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "TICKET_RUNNER_SANDBOX_TOKEN", "TICKET_RUNNER_STAGE", "TICKET_RUNNER_DEMO_STATE"]) delete env[name];
  return {
    ...env,
    TICKET_RUNNER_API_URL: sandbox.apiUrl,
    TICKET_RUNNER_TOKEN: target.userToken,
    TICKET_RUNNER_RUN_ROOT: paths.runRoot,
    TICKET_RUNNER_DEMO_TEAMMATE_TOKEN: target.teammateToken,
  };
}
