/**
 * The demo agent's "conflict" behaviour against the sandbox over real smart HTTP: the teammate's
 * push needs a token of its own (the agent's env has no GitHub token), given as
 * TICKET_RUNNER_DEMO_TEAMMATE_TOKEN; without it the Stage fails saying exactly that.
 */
import { strict as assert } from "node:assert";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createDemoAgentRunner } from "../../../src/adapters/agent/demo-agent-runner";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { DEMO_FILES, DEMO_ISSUES } from "../../../src/sandbox/seeds/demo-project";
import { git, makeTempDir } from "../../support/git-fixtures";
import { buildDemoAgent } from "./helpers";

describe("demo agent conflict behaviour against the sandbox", function () {
  this.timeout(90_000);
  let distDir: string;
  let sandbox: SandboxHandle;
  let root: string;

  before(async () => {
    distDir = await buildDemoAgent();
    sandbox = await startSandbox({ quiet: true });
  });
  after(async () => {
    await sandbox.stop();
    await rm(distDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    root = await makeTempDir("tr-demo-sbx-");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function cloneRepo(name: string): Promise<{ clone: string; worktree: string }> {
    await sandbox.admin.createRepo({ owner: "demo", name, files: DEMO_FILES });
    const clone = join(root, "clone");
    await git(root, ["clone", "-q", sandbox.gitUrl("demo", name), clone]);
    const worktree = join(clone, ".worktrees", "ticket-4");
    await git(clone, ["worktree", "add", "-q", "-b", "agent/4-currency", worktree, "origin/main"]);
    return { clone, worktree };
  }

  function implement(worktree: string, env: Record<string, string>) {
    const issue = DEMO_ISSUES[3]!;
    return createDemoAgentRunner(distDir, { baseEnv: { ...process.env, ...env } }).run({
      stage: "implement",
      ticket: 4,
      prompt: `Implement.\n<<<ISSUE\n${issue.title}\n${issue.body}\nISSUE>>>`,
      cwd: worktree,
      logDir: join(root, "logs"),
      logName: `implement-${Date.now()}`,
      timeoutMs: 60_000,
      maxTurns: 20,
    });
  }

  it("pushes the teammate's commit with the teammate token; the rebase then stops", async () => {
    const { clone, worktree } = await cloneRepo("shop-conflict");
    const { token } = await sandbox.admin.addUser({ login: "teammate", repos: { "demo/shop-conflict": "write" } });
    const before = await git(clone, ["ls-remote", "origin", "refs/heads/main"]);
    const result = await implement(worktree, { TICKET_RUNNER_DEMO_TEAMMATE_TOKEN: token, GITHUB_TOKEN: "ghp_notForTheAgent0123456789abcdefABCD" });
    assert.equal(result.outcome, "success", result.detail);
    const after = await git(clone, ["ls-remote", "origin", "refs/heads/main"]);
    assert.notEqual(after, before, "main moved on the sandbox");
    await git(worktree, ["fetch", "-q", "origin", "+main:refs/remotes/origin/main"]);
    assert.equal(await git(worktree, ["log", "-1", "--format=%an", "origin/main"]), "A. Teammate");
    await assert.rejects(git(worktree, ["rebase", "origin/main"]), "the rebase stops");
    await git(worktree, ["rebase", "--abort"]);
  });

  it("without a token the Stage fails and says which variable to set", async () => {
    const { worktree } = await cloneRepo("shop-no-token");
    const result = await implement(worktree, {});
    assert.equal(result.outcome, "nonzero-exit");
    assert.match(result.text, /could not push the teammate's commit to main: .*TICKET_RUNNER_DEMO_TEAMMATE_TOKEN/s);
  });
});
