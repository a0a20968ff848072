/**
 * Take-over destroys nothing on the git side unless asked (docs/claims.md, ADR 0046), and `board --json` shows
 * the claim. Real CLI processes, a real clone of a sandbox repository.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { useClaimsSandbox } from "./claims-sandbox";
import { runCli } from "./cli-process";

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  LC_ALL: "C",
};

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();
}

describe("claims (integration): take-over and branches, board --json", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox();
  let clone: string;
  const env = () => ({
    TICKET_RUNNER_TOKEN: s.tokens.alice!,
    TICKET_RUNNER_RUN_ROOT: join(s.dir, "runs"),
    TICKET_RUNNER_HOST_SESSION: "tk-host",
    TICKET_RUNNER_HOST_NAME: "tk-host",
  });

  before(async () => {
    clone = await s.clone("alice", "clone", { lease: { settleMs: 150 } });
  });

  it("--fresh-branch refuses git branch -d on unpushed work, --delete-branch-force says what it drops", async () => {
    const n = await s.issue("branchy");
    const first = await runCli(["start", String(n)], { cwd: clone, env: env() });
    assert.equal(first.code, 0, first.stderr);
    const wt = join(clone, ".worktrees", `ticket-${n}`);
    writeFileSync(join(wt, "work.txt"), "unpushed work\n");
    git(wt, ["add", "work.txt"]);
    git(wt, ["commit", "-q", "-m", "work in progress"]);

    const refused = await runCli(["start", String(n), "--take-over", "--fresh-branch"], { cwd: clone, env: env() });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /git branch -d refused to delete agent\/\d+-branchy: .*1 commit\(s\) on no remote/);
    assert.ok(git(clone, ["branch", "--list", `agent/${n}-branchy`]).includes(`agent/${n}-branchy`), "the branch is still there");

    const forced = await runCli(["start", String(n), "--take-over", "--fresh-branch", "--delete-branch-force"], { cwd: clone, env: env() });
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /git branch -D, as asked \(--delete-branch-force\): 1 commit\(s\) on it are on no remote/);
    assert.match(forced.stdout, /Worktree: .*ticket-\d+ \(branch agent\/\d+-branchy\)/);
  });

  it("board --json shows the claim with its lease link (the board model's shape is the board's)", async () => {
    const n = await s.issue("on the board");
    const claimed = await runCli(["claim", String(n)], { cwd: clone, env: env() });
    assert.equal(claimed.code, 0, claimed.stderr);
    const lease = /Lease: (\S+)/.exec(claimed.stdout)?.[1];
    assert.ok(lease);
    const b = await runCli(["board", "--json"], { cwd: clone, env: env() });
    assert.equal(b.code, 0, b.stderr);
    assert.doesNotThrow(() => JSON.parse(b.stdout));
    assert.ok(b.stdout.includes(lease!), "the lease comment's URL is on the board");
  });
});
