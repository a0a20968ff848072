/**
 * One winner on one Host (docs/claims.md): 8 simultaneous `ticket-runner start <n>` processes (the built
 * CLI, real child processes) for one ticket on one run root, through the whole protocol against
 * the sandbox. Exactly one wins, seven are refused with the run directory and the resume command.
 * Repeated ROUNDS times, a fresh ticket each round.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import { FULL, NAME, OWNER, useClaimsSandbox } from "./claims-sandbox";
import { runCli } from "./cli-process";
import { rounds } from "../../support/rounds";

const ROUNDS = Number(process.env.CLAIMS_RACE_ROUNDS ?? rounds(50, 3));
const STARTS = 8;

describe("claims (integration): 8 simultaneous starts on one Host", function () {
  this.timeout(15 * 60_000);
  const s = useClaimsSandbox();
  let clone: string;

  before(async () => {
    clone = await s.clone("alice", "clone", { lease: { settleMs: 250 } });
  });

  it(`exactly 1 wins and ${STARTS - 1} are refused, ${ROUNDS} rounds`, async () => {
    const tickets: number[] = [];
    for (let i = 0; i < ROUNDS; i++) tickets.push(await s.issue(`race ${i}`));
    const env = {
      TICKET_RUNNER_TOKEN: s.tokens.alice!,
      TICKET_RUNNER_RUN_ROOT: join(s.dir, "runs"),
      TICKET_RUNNER_HOST_SESSION: "one-host",
      TICKET_RUNNER_HOST_NAME: "one-host",
    };
    const durations: number[] = [];
    for (const n of tickets) {
      const t0 = Date.now();
      const results = await Promise.all(Array.from({ length: STARTS }, () => runCli(["start", String(n)], { cwd: clone, env })));
      durations.push(Date.now() - t0);
      const won = results.filter((r) => r.code === 0);
      const refused = results.filter((r) => r.code === 2);
      assert.equal(won.length, 1, `ticket ${n}: ${won.length} winners\n${results.map((r) => `${r.code}: ${r.stderr}`).join("\n")}`);
      assert.equal(refused.length, STARTS - 1, results.map((r) => `${r.code}: ${r.stderr}`).join("\n"));
      const runDir = join(s.dir, "runs", `${OWNER}__${NAME}`, `issue-${n}`);
      for (const r of refused) {
        assert.ok(r.stderr.includes(runDir), r.stderr);
        assert.ok(r.stderr.includes(`ticket-runner resume ${n}`), r.stderr);
      }
      // On GitHub: one lease, one assignee, the board claim.
      const thread = await s.tracker("alice").readIssueThread(n);
      const leases = thread!.comments.filter((c) => parseLeaseComment(c.body, { repo: FULL, issue: n }).kind === "lease");
      assert.equal(leases.length, 1, `ticket ${n} has ${leases.length} lease comments`);
      assert.deepEqual(thread!.issue.assignees, ["alice"]);
      assert.ok(thread!.issue.labels.includes("in-progress") && !thread!.issue.labels.includes("ready-for-agent"));
    }
    const mean = durations.reduce((a, b) => a + b, 0) / durations.length;
    const sorted = [...durations].sort((a, b) => a - b);
    console.log(
      `      ${ROUNDS} rounds x ${STARTS} processes: mean ${Math.round(mean)} ms/round, median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted[sorted.length - 1]} ms`,
    );
  });
});
