/**
 * A Target for whole Runs: the demo project (its own tests are the Checks and the sandbox CI), a
 * user with write access, a real clone, and tickets carrying ticket-runner-demo blocks. The sandbox
 * must run in another process (test/support/sandbox-process.ts): the clone is a synchronous git call.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { DEMO_CI_COMMAND, DEMO_FILES } from "../../../src/sandbox/seeds/demo-project";
import type { SandboxHandle } from "../../../src/sandbox/start";

export const OWNER = "demo";
export const REPO = "shop";
export const USER = "ana";

export interface RunTarget {
  apiUrl: string;
  adminToken: string;
  userToken: string;
  owner: string;
  repo: string;
  clone: string;
}

export interface DemoTicket {
  title: string;
  /** One `- [ ]` criterion per entry: [text, file, what the file must contain]. */
  criteria: [string, string, string][];
  files: Record<string, string>;
  behaviours?: string[];
}

export function demoTicketBody(t: DemoTicket): string {
  const block = { files: t.files, criteria: t.criteria.map(([, file, contains]) => ({ file, contains })), ...(t.behaviours?.length ? { behaviours: t.behaviours } : {}) };
  return [`${t.title}.`, "", ...t.criteria.map(([text]) => `- [ ] ${text}`), "", "```ticket-runner-demo", JSON.stringify(block, null, 2), "```"].join("\n");
}

/** A small ticket that merges: a new module and its test, each a criterion. */
export function simpleTicket(name: string, behaviours: string[] = []): DemoTicket {
  const fn = name.replace(/[^A-Za-z]/g, "");
  return {
    title: `Add the ${name} helper`,
    criteria: [
      [`\`src/${fn}.js\` exports \`${fn}\``, `src/${fn}.js`, `function ${fn}`],
      [`a test covers \`${fn}\``, `test/${fn}.test.js`, `${fn}()`],
    ],
    files: {
      [`src/${fn}.js`]: `function ${fn}() {\n  return "${name}";\n}\n\nmodule.exports = { ${fn} };\n`,
      [`test/${fn}.test.js`]: `const test = require("node:test");\nconst assert = require("node:assert/strict");\nconst { ${fn} } = require("../src/${fn}.js");\n\ntest("${fn}", () => {\n  assert.equal(${fn}(), "${name}");\n});\n`,
    },
    behaviours,
  };
}

export function quietOctokit(apiUrl: string, token: string): Octokit {
  const quiet = () => undefined;
  return new Octokit({ baseUrl: apiUrl, auth: token, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } });
}

export async function seedTarget(sandbox: SandboxHandle, scratch: string, config: Record<string, unknown> = {}): Promise<RunTarget> {
  const ticketRunnerJson = {
    lanes: 1,
    checks: [["node", "--test"]],
    agent: { kind: "demo", stageTimeoutMinutes: 5 },
    ci: { graceMinutes: 1, pollSeconds: 1, timeoutMinutes: 5 },
    lease: { settleMs: 200 },
    ...config,
  };
  await sandbox.admin.createRepo({
    owner: OWNER,
    name: REPO,
    files: { ...DEMO_FILES, "ticket-runner.json": `${JSON.stringify(ticketRunnerJson, null, 2)}\n` },
    ciCommand: DEMO_CI_COMMAND,
    labels: [{ name: "ready-for-agent" }, { name: "in-progress" }, { name: "ready-for-human" }],
  });
  const { token } = await sandbox.admin.addUser({ login: USER, repos: { [`${OWNER}/${REPO}`]: "write" } });
  const clone = join(scratch, "shop");
  cloneWithToken(sandbox.gitUrl(OWNER, REPO), token, clone);
  mkdirSync(join(scratch, "runs"), { recursive: true });
  return { apiUrl: sandbox.apiUrl, adminToken: sandbox.adminToken, userToken: token, owner: OWNER, repo: REPO, clone };
}

/** The token goes in a header for this one command, never into the clone's config. */
export function cloneWithToken(url: string, token: string, dir: string): void {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  const r = spawnSync("git", ["-c", `http.extraHeader=Authorization: Basic ${basic}`, "clone", "-q", url, dir], { encoding: "utf8", env: { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" } });
  if (r.status !== 0) throw new Error(`git clone ${url} failed: ${r.stderr}`);
}

/** Opens tickets as the admin (a trusted writer applies the label), in order; returns their numbers. */
export async function openTickets(target: Pick<RunTarget, "apiUrl" | "adminToken" | "owner" | "repo">, tickets: DemoTicket[], labels: string[] = ["ready-for-agent"]): Promise<number[]> {
  const octokit = quietOctokit(target.apiUrl, target.adminToken);
  const numbers: number[] = [];
  for (const t of tickets) {
    const { data } = await octokit.rest.issues.create({ owner: target.owner, repo: target.repo, title: t.title, body: demoTicketBody(t), labels });
    numbers.push(data.number);
  }
  return numbers;
}
