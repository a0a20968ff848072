/**
 * Seed 000's four starts, for real: the built CLI as child processes, against the sandbox over HTTP.
 *   A: a clean start            -> claimed, run dir + worktree printed
 *   B: the same ticket again    -> refused with the run directory and `ticket-runner resume <n>`
 *   C: another machine's claim  -> refused with the lease comment's URL and the take-over command
 *   D: a finished claim, taken over -> started; the displaced local run archived under superseded/
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseLeaseComment, renderLeaseComment } from "../../../src/core/claims/lease-comment";
import { FULL, NAME, OWNER, useClaimsSandbox } from "./claims-sandbox";
import { runCli } from "./cli-process";

describe("claims (integration): the four ways to start a ticket (docs/claims.md), as real processes", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox();
  let clone: string;
  let otherClone: string;

  before(async () => {
    clone = await s.clone("alice", "clone-a", { lease: { settleMs: 200 } });
    otherClone = await s.clone("bob", "clone-c", { lease: { settleMs: 200 } });
  });

  const hostA = () => ({
    TICKET_RUNNER_TOKEN: s.tokens.alice!,
    TICKET_RUNNER_RUN_ROOT: join(s.dir, "runs-a"),
    TICKET_RUNNER_HOST_SESSION: "host-a",
    TICKET_RUNNER_HOST_NAME: "laptop-a",
  });
  const hostC = () => ({
    TICKET_RUNNER_TOKEN: s.tokens.bob!,
    TICKET_RUNNER_RUN_ROOT: join(s.dir, "runs-c"),
    TICKET_RUNNER_HOST_SESSION: "host-c",
    TICKET_RUNNER_HOST_NAME: "vm-c",
  });

  it("A, B, C and D", async () => {
    const n = await s.issue("flaky build");

    const a = await runCli(["start", String(n)], { cwd: clone, env: hostA() });
    assert.equal(a.code, 0, a.stderr);
    const runDir = join(s.dir, "runs-a", `${OWNER}__${NAME}`, `issue-${n}`);
    assert.match(a.stdout, new RegExp(`Run directory: ${runDir}`));
    assert.match(a.stdout, /Worktree: .*\.worktrees\/ticket-1 \(branch agent\/1-flaky-build\)/);
    assert.ok(existsSync(join(clone, ".worktrees", `ticket-${n}`)));

    const b = await runCli(["start", String(n)], { cwd: clone, env: hostA() });
    assert.equal(b.code, 2, b.stderr);
    assert.ok(b.stderr.includes(runDir), b.stderr);
    assert.match(b.stderr, new RegExp(`Resume it with: ticket-runner resume ${n}`));

    const c = await runCli(["start", String(n)], { cwd: otherClone, env: hostC() });
    assert.equal(c.code, 2, c.stderr);
    const comments = await s.tracker("alice").listComments(n);
    const lease = comments.find((x) => parseLeaseComment(x.body, { repo: FULL, issue: n }).kind === "lease")!;
    assert.ok(c.stderr.includes(lease.url), c.stderr);
    assert.match(c.stderr, /claimed by @alice on host "laptop-a"/);
    assert.match(c.stderr, new RegExp(`ticket-runner start ${n} --take-over`));

    // The run finishes (its lease becomes a finished record) but its run directory is still here.
    const parsed = parseLeaseComment(lease.body, { repo: FULL, issue: n });
    assert.equal(parsed.kind, "lease");
    if (parsed.kind !== "lease") return;
    await s.tracker("alice").updateComment(lease.id, renderLeaseComment({ ...parsed.lease, state: "finished" }));

    const d = await runCli(["start", String(n), "--take-over"], { cwd: clone, env: hostA() });
    assert.equal(d.code, 0, d.stderr);
    const archived = /moved to (\S+)/.exec(d.stdout)?.[1];
    assert.ok(archived, d.stdout);
    assert.match(archived!, new RegExp(`${runDir}/superseded/\\d{4}-\\d\\d-\\d\\dT`));
    assert.ok(existsSync(join(archived!, "run.json")), "the displaced run.json is kept, not deleted");
    assert.deepEqual(readdirSync(runDir).sort(), ["run.json", "superseded"]);
    // Nothing destroyed on the git side either: the earlier branch is continued, not deleted.
    assert.match(d.stdout, /Continuing on the existing branch agent\/1-flaky-build/);
  });
});
