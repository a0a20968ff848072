/**
 * Refusals github.com makes that plain git never does, played by the sandbox from GitHub's
 * published descriptions, and what `ticket-runner run` does with each (ADR 0241):
 * - a ruleset on the base requiring an approving review, or a status check CI never reports: the
 *   merge is refused 405 ("Merge a pull request", OpenAPI `pulls/merge`; the protected branch's
 *   words) and the ticket is handed off naming the rule and the fix;
 * - "Block force pushes" and "Restrict deletions" on every branch (`non_fast_forward`, `deletion`;
 *   "Create a repository ruleset", OpenAPI `repos/create-repo-ruleset`): the State records live
 *   outside refs/heads and the Run lock only moves forward, so a ticket still merges;
 * - "Require merge queue" on the base (`merge_queue`): the merge API is refused ("Changes must be
 *   made through the merge queue") and the ticket is handed off with its pull request, naming the
 *   queue and how to enqueue it;
 * - "Require a pull request" on every branch: the Run lock cannot be written, and the Run says
 *   which setting to change;
 * - secret scanning push protection (`security_and_analysis`, OpenAPI `repos/update`): a commit
 *   carrying a token is refused with GH013 "Push cannot contain secrets" and the ticket is handed off
 *   saying so.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import { CI_CHECK_NAME } from "../../../src/sandbox/ci";
import { checkResponse } from "../../support/openapi-reference";
import { RunWorld } from "./run-helpers";

type Rule =
  | { type: "non_fast_forward" | "deletion" }
  | {
      type: "pull_request";
      parameters: {
        required_approving_review_count: number;
        dismiss_stale_reviews_on_push: boolean;
        require_code_owner_review: boolean;
        require_last_push_approval: boolean;
        required_review_thread_resolution: boolean;
      };
    }
  | { type: "required_status_checks"; parameters: { required_status_checks: { context: string }[]; strict_required_status_checks_policy: boolean } }
  | {
      type: "merge_queue";
      parameters: {
        check_response_timeout_minutes: number;
        grouping_strategy: "ALLGREEN" | "HEADGREEN";
        max_entries_to_build: number;
        max_entries_to_merge: number;
        merge_method: "MERGE" | "SQUASH" | "REBASE";
        min_entries_to_merge: number;
        min_entries_to_merge_wait_minutes: number;
      };
    };

const PR_RULE = {
  dismiss_stale_reviews_on_push: false,
  require_code_owner_review: false,
  require_last_push_approval: false,
  required_review_thread_resolution: false,
};

describe("run (integration): repository rules and push protection, as github.com refuses", function () {
  this.timeout(240_000);
  let w: RunWorld;
  const rulesets: number[] = [];
  before(async () => {
    w = await RunWorld.make();
  });
  after(async () => w?.dispose());
  afterEach(async () => {
    for (const id of rulesets.splice(0))
      await w.octokit.request("DELETE /repos/{owner}/{repo}/rulesets/{ruleset_id}", { owner: w.target.owner, repo: w.target.repo, ruleset_id: id });
  });

  async function ruleset(name: string, include: string[], rules: Rule[], exclude: string[] = []): Promise<void> {
    const res = await w.octokit.request("POST /repos/{owner}/{repo}/rulesets", {
      owner: w.target.owner,
      repo: w.target.repo,
      name,
      target: "branch",
      enforcement: "active",
      conditions: { ref_name: { include, exclude } },
      rules,
    });
    assert.deepEqual(
      checkResponse("POST /repos/{owner}/{repo}/rulesets", res.status, res.data),
      [],
      "the sandbox answers as GitHub's OpenAPI description says",
    );
    rulesets.push(res.data.id);
  }

  async function handoffText(n: number): Promise<string> {
    const handoff = (await w.comments(n)).find((c) => c.body.startsWith(HANDOFF_MARKER));
    assert.ok(handoff, `#${n} has a hand-off comment`);
    // The comment shows the failure as escaped text; read it as a person would.
    return handoff.body.replace(/\\([\\`*_{}[\]()#+\-.!|<>~"])/g, "$1");
  }

  it("a required approving review on the base: handed off at merge, naming the rule and who can merge it", async () => {
    await ruleset("main needs a review", ["~DEFAULT_BRANCH"], [{ type: "pull_request", parameters: { required_approving_review_count: 1, ...PR_RULE } }]);
    const [n] = await w.tickets([w.ticket("reviewed one")]);
    const r = await w.cliDone(["run"]);
    const said = `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;
    assert.equal(r.code, 1, said);
    const text = await handoffText(n!);
    assert.match(text, /Failed at \*\*merge\*\*/);
    assert.match(text, /the rules of `main` say: At least 1 approving review is required by reviewers with write access/);
    assert.match(text, /a person with write access reviews and approves pull request #\d+, then merges it/);
    assert.deepEqual((await w.issue(n!)).labelNames, ["ready-for-human"]);
  });

  it("a required status check CI never reports: handed off at merge, naming the check and the fix", async () => {
    await ruleset(
      "main needs lint",
      ["~DEFAULT_BRANCH"],
      [
        {
          type: "required_status_checks",
          parameters: { required_status_checks: [{ context: CI_CHECK_NAME }, { context: "lint" }], strict_required_status_checks_policy: false },
        },
      ],
    );
    const [n] = await w.tickets([w.ticket("checked one")]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 1, r.out.join("\n"));
    const text = await handoffText(n!);
    assert.match(text, /require the status check "lint", which has not reported on the pull request's head/);
    assert.match(text, /make CI report a passing check named "lint"/);
  });

  it("a merge queue on the base: handed off at merge with its pull request, naming the queue and how to enqueue it", async () => {
    const queue = {
      check_response_timeout_minutes: 60,
      grouping_strategy: "ALLGREEN",
      max_entries_to_build: 5,
      max_entries_to_merge: 5,
      merge_method: "SQUASH",
      min_entries_to_merge: 1,
      min_entries_to_merge_wait_minutes: 5,
    } as const;
    await ruleset("main merges through a queue", ["~DEFAULT_BRANCH"], [{ type: "merge_queue", parameters: queue }]);
    const listed = await w.octokit.request("GET /repos/{owner}/{repo}/rulesets", { owner: w.target.owner, repo: w.target.repo });
    assert.deepEqual(
      checkResponse("GET /repos/{owner}/{repo}/rulesets", listed.status, listed.data),
      [],
      "the listed ruleset reads as GitHub's OpenAPI description says",
    );
    const [n] = await w.tickets([w.ticket("queued one")]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 1, r.out.join("\n"));
    const text = await handoffText(n!);
    assert.match(text, /Failed at \*\*merge\*\*/);
    assert.match(text, /`main` requires a merge queue/);
    assert.match(text, /gh pr merge \d+ --auto/);
    const pulls = await w.octokit.request("GET /repos/{owner}/{repo}/pulls", { owner: w.target.owner, repo: w.target.repo, state: "open" });
    assert.equal(pulls.data.filter((p) => p.head.ref.startsWith(`agent/${n}-`)).length, 1, "the ticket's pull request is kept open for the queue");
  });

  it("force pushes and deletions blocked on every branch: the State records and the Run lock still work, and a ticket merges", async () => {
    await ruleset("every branch: no force, no delete", ["~ALL"], [{ type: "non_fast_forward" }, { type: "deletion" }]);
    // The sandbox refuses what GitHub would: a force push to any branch, in GitHub's words.
    const scratch = `${w.scratch}/force`;
    execFileSync("git", ["clone", "-q", w.target.clone, scratch]);
    execFileSync("git", ["-C", scratch, "commit", "-q", "--amend", "-m", "rewritten", "--no-edit"], {
      env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" },
    });
    const remote = execFileSync("git", ["-C", w.target.clone, "remote", "get-url", "origin"]).toString().trim();
    const basic = Buffer.from(`x-access-token:${w.target.userToken}`).toString("base64");
    let refused = "";
    try {
      execFileSync("git", ["-C", scratch, "-c", `http.extraHeader=Authorization: Basic ${basic}`, "push", "--force", remote, "HEAD:main"], {
        stdio: "pipe",
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      });
    } catch (error) {
      refused = String((error as { stderr?: Buffer }).stderr ?? error);
    }
    assert.match(refused, /GH013: Repository rule violations found for refs\/heads\/main\./);
    assert.match(refused, /- Cannot force-push to this branch/);

    const [n] = await w.tickets([w.ticket("forward only")]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 0, `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`);
    assert.ok(
      r.out.some((l) => new RegExp(`#${n}\\s+merged`).test(l)),
      r.out.join("\n"),
    );
    assert.equal(await w.stateOf(n!), null, "the State record was removed (a ref outside refs/heads)");
    assert.equal((await w.lock()).held, false, "the Run lock was taken and given back, each a commit on top");
  });

  it("pull requests required on every branch: the Run cannot take its lock and says which setting to change", async () => {
    await ruleset("every branch takes pull requests", ["~ALL"], [{ type: "pull_request", parameters: { required_approving_review_count: 0, ...PR_RULE } }]);
    const r = await w.cliDone(["run"]);
    const said = `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;
    assert.notEqual(r.code, 0, said);
    assert.match(
      said,
      /GitHub refused the write to ticket-runner\/lock: a branch protection rule or ruleset of the repository refused it \(.*Changes must be made through a pull request/,
    );
    assert.match(said, /leave `ticket-runner\/lock` out of that rule/);
  });

  it("push protection: a commit carrying a token is refused, and the ticket is handed off naming push protection", async () => {
    const res = await w.octokit.request("PATCH /repos/{owner}/{repo}", {
      owner: w.target.owner,
      repo: w.target.repo,
      security_and_analysis: { secret_scanning_push_protection: { status: "enabled" } },
    });
    assert.deepEqual(checkResponse("PATCH /repos/{owner}/{repo}", res.status, res.data), []);
    const token = `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`;
    const [n] = await w.tickets([
      {
        title: "Configure the client",
        criteria: [["`config.js` names the token", "config.js", "token"]],
        files: { "config.js": `module.exports = { token: "${token}" };\n` },
      },
    ]);
    const r = await w.cliDone(["run"]);
    await w.octokit.request("PATCH /repos/{owner}/{repo}", {
      owner: w.target.owner,
      repo: w.target.repo,
      security_and_analysis: { secret_scanning_push_protection: { status: "disabled" } },
    });
    assert.equal(r.code, 1, r.out.join("\n"));
    const text = await handoffText(n!);
    assert.match(text, /GitHub's secret scanning push protection found a secret in its commits/);
    assert.match(text, /remove the secret from the commits/);
    assert.ok(!text.includes(token), "the hand-off never quotes the secret");
    assert.deepEqual(
      (await w.branches()).filter((b) => b.startsWith(`agent/${n}-`)),
      [],
      "nothing reached the remote",
    );
  });
});
