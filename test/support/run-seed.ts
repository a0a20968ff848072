/**
 * A Target for a whole Run against the sandbox with the demo agent: the demo project (its own
 * tests are the Checks and the sandbox CI), a user with write access, issues with demo blocks, and
 * a real clone in a workspace folder (plus a `.code-workspace` file naming it, for a multi-root
 * window). Used by the Run's integration tests, the extension's in-host Run tests, the Playwright
 * E2E and the benchmarks. Bundled into the extension host by esbuild: no mocha globals here.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_CI_COMMAND, DEMO_FILES } from "../../src/sandbox/seeds/demo-project";
import type { SandboxHandle } from "../../src/sandbox/start";
import { sandboxOctokit } from "./board-seed";

export const RUN_OWNER = "demo";
export const RUN_REPO = "shop";
export const RUN_USER = "ana";

export interface RunTarget {
  apiUrl: string;
  adminToken: string;
  /** The user the extension acts as (write access). */
  userToken: string;
  owner: string;
  repo: string;
  /** The clone: the Target's working copy. */
  clone: string;
  /** A `.code-workspace` whose only folder is the clone (a window that can take worktree folders). */
  workspaceFile: string;
}

export interface DemoTicket {
  title: string;
  /** One `- [ ]` criterion per entry: [text, file, what the file must contain]. */
  criteria: [string, string, string][];
  files: Record<string, string>;
  behaviours?: string[];
}

export function demoTicketBody(t: DemoTicket): string {
  const block = {
    files: t.files,
    criteria: t.criteria.map(([, file, contains]) => ({ file, contains })),
    ...(t.behaviours?.length ? { behaviours: t.behaviours } : {}),
  };
  return [`${t.title}.`, "", ...t.criteria.map(([text]) => `- [ ] ${text}`), "", "```ticket-runner-demo", JSON.stringify(block, null, 2), "```"].join("\n");
}

/** A small ticket that merges: one new module and a test, each a criterion. */
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

const run = promisify(execFile);

/**
 * Clones with the token in a header for this one command, never into the clone's config.
 * Asynchronous on purpose: when the sandbox serves from this same process, a blocking git would wait for itself.
 */
export async function cloneWithToken(url: string, token: string, dir: string): Promise<void> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  try {
    await run("git", ["-c", `http.extraHeader=Authorization: Basic ${basic}`, "clone", "-q", url, dir], {
      env: { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
    });
  } catch (e) {
    // execFile's own message repeats the command line, header and all: say only git's words.
    const stderr = (e as { stderr?: unknown }).stderr;
    throw new Error(`git clone ${url} failed: ${typeof stderr === "string" ? stderr : "(no output)"}`);
  }
}

/** Creates the repository, the user and the clone. Issues are opened separately (openTickets). */
export async function seedRunTarget(sandbox: SandboxHandle, scratch: string, config: Record<string, unknown> = {}): Promise<RunTarget> {
  const ticketRunnerJson = {
    lanes: 2,
    checks: [["node", "--test"]],
    agent: { kind: "demo", stageTimeoutMinutes: 5 },
    ci: { graceMinutes: 1, pollSeconds: 1, timeoutMinutes: 5 },
    lease: { settleMs: 200 },
    ...config,
  };
  await sandbox.admin.createRepo({
    owner: RUN_OWNER,
    name: RUN_REPO,
    files: { ...DEMO_FILES, "ticket-runner.json": JSON.stringify(ticketRunnerJson, null, 2) + "\n" },
    ciCommand: DEMO_CI_COMMAND,
    labels: [{ name: "ready-for-agent" }, { name: "in-progress" }, { name: "ready-for-human" }],
  });
  const { token } = await sandbox.admin.addUser({ login: RUN_USER, repos: { [`${RUN_OWNER}/${RUN_REPO}`]: "write" } });
  const clone = join(scratch, "shop");
  await cloneWithToken(sandbox.gitUrl(RUN_OWNER, RUN_REPO), token, clone);
  const workspaceFile = join(scratch, "shop.code-workspace");
  writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: clone }], settings: {} }, null, 2) + "\n");
  mkdirSync(join(scratch, "runs"), { recursive: true });
  return { apiUrl: sandbox.apiUrl, adminToken: sandbox.adminToken, userToken: token, owner: RUN_OWNER, repo: RUN_REPO, clone, workspaceFile };
}

/** Opens tickets as the admin (a trusted writer applies the label), in order; returns their numbers. */
export async function openTickets(
  target: Pick<RunTarget, "apiUrl" | "adminToken" | "owner" | "repo">,
  tickets: DemoTicket[],
  labels: string[] = ["ready-for-agent"],
): Promise<number[]> {
  const octokit = sandboxOctokit(target.apiUrl, target.adminToken);
  const numbers: number[] = [];
  for (const t of tickets) {
    const { data } = await octokit.rest.issues.create({ owner: target.owner, repo: target.repo, title: t.title, body: demoTicketBody(t), labels });
    numbers.push(data.number);
  }
  return numbers;
}
