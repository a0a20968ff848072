/**
 * `ticket-runner hand-back <n>` as a real process against the sandbox: ready-for-human ->
 * ready-for-agent and nothing else; refused (exit 2, link and next command) when the issue is not
 * handed off or is closed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FULL, LABELS, NAME, OWNER, useClaimsSandbox } from "./claims-sandbox";
import { runCli } from "./cli-process";

describe("claims (integration): ticket-runner hand-back", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox();
  let clone: string;
  before(async () => {
    clone = await s.clone("alice", "clone-a", { lease: { settleMs: 200 } });
  });

  const env = () => ({ TICKET_RUNNER_TOKEN: s.tokens.alice!, TICKET_RUNNER_RUN_ROOT: join(s.dir, "runs-a"), TICKET_RUNNER_HOST_SESSION: "host-a" });

  it("moves ready-for-human to ready-for-agent, keeps the assignee, and says what the next Run does", async () => {
    const n = await s.issue("handed off", [LABELS.human, "bug"]);
    await s
      .client("alice")
      .request("POST /repos/{owner}/{repo}/issues/{issue_number}/assignees", { owner: OWNER, repo: NAME, issue_number: n, assignees: ["bob"] });
    const r = await runCli(["hand-back", String(n)], { cwd: clone, env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`Handed back ${FULL}#${n}: ready-for-human off, ready-for-agent on; the next Run resumes #${n} from .+ with a fresh fix budget`),
    );
    const issue = (await s.tracker("alice").getIssue(n))!;
    assert.deepEqual([...issue.labels].sort(), ["bug", LABELS.ready]);
    assert.deepEqual(issue.assignees, ["bob"]);
  });

  it("refuses a ticket not labelled ready-for-human, with the issue's link and the next command, changing nothing", async () => {
    const n = await s.issue("on the frontier");
    const r = await runCli(["hand-back", String(n)], { cwd: clone, env: env() });
    assert.equal(r.code, 2, r.stderr);
    const issue = (await s.tracker("alice").getIssue(n))!;
    assert.ok(r.stderr.includes(issue.url), r.stderr);
    assert.match(r.stderr, /not labelled ready-for-human: it is already labelled ready-for-agent/);
    assert.match(r.stderr, /ticket-runner board/);
    assert.deepEqual(issue.labels, [LABELS.ready]);
  });

  it("refuses a closed ticket", async () => {
    const n = await s.issue("closed by hand", [LABELS.human]);
    await s.client("alice").request("PATCH /repos/{owner}/{repo}/issues/{issue_number}", { owner: OWNER, repo: NAME, issue_number: n, state: "closed" });
    const r = await runCli(["hand-back", String(n)], { cwd: clone, env: env() });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /is closed, so there is nothing to hand back/);
    assert.match(r.stderr, new RegExp(`ticket-runner hand-back ${n}`));
    assert.deepEqual((await s.tracker("alice").getIssue(n))!.labels, [LABELS.human]);
  });
});
