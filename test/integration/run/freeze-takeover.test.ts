/**
 * A Run frozen (SIGSTOP: a suspended laptop, a paused VM) at each Stage boundary in turn, long
 * enough for its lease to expire; another Host takes the ticket over (`takeover-stale`, by `start`);
 * the Run wakes (SIGCONT). Its lease must still read superseded at the end, the issue must show
 * exactly one live claim, and the woken Run's own output must say what it wrote (ADR 0171).
 */
import { strict as assert } from "node:assert";
import { parseComments } from "../../../src/core/claims/claim-view";
import { standings, type LeaseRecord } from "../../../src/core/claims/lease-standing";
import { waitFor } from "../../support/wait-for";
import { RunWorld, type RunProcess } from "./run-helpers";

const say = (r: { out: string[]; err: string[] }) => `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;

/** Where the Run is frozen: just after the line that ends this part of its work. */
const BOUNDARIES: { name: string; line: (n: number) => RegExp }[] = [
  { name: "claimed, before setup and implement", line: (n) => new RegExp(`lane 1: #${n} `) },
  { name: "implement ended, before the Checks", line: (n) => new RegExp(`#${n} implement: `) },
  { name: "Checks ended, before verify", line: (n) => new RegExp(`#${n} (?!implement|verify)[^:]+: ✅`) },
  { name: "verify ended, before the pull request", line: (n) => new RegExp(`#${n} verify: `) },
  { name: "pull request opened, waiting for CI", line: (n) => new RegExp(`#${n} pr: `) },
];

describe("run (integration): a Run frozen past its lease and taken over writes nothing more to it", function () {
  this.timeout(600_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  for (const boundary of BOUNDARIES) {
    it(`frozen at: ${boundary.name}`, async () => {
      // A short lease, so a freeze outlives it; heartbeats keep it alive while the Run is awake.
      w = await RunWorld.make({
        lease: { settleMs: 200, ttlMinutes: 0.1, heartbeatMinutes: 0.05 },
        ci: { graceMinutes: 1, pollSeconds: 2, timeoutMinutes: 5 },
      });
      const [n] = await w.tickets([w.ticket("sleeper", ["slow:1500"])]);
      const hostA = w.hostEnv("a", { TICKET_RUNNER_HOST_SESSION: "host-a" });
      const hostB = w.hostEnv("b", { TICKET_RUNNER_HOST_SESSION: "host-b" });
      const run: RunProcess = w.cli(["run"], { host: hostA });
      await waitFor(() => run.out.some((l) => boundary.line(n!).test(l)), { timeoutMs: 120_000, what: `the Run to reach: ${boundary.name}\n${say(run)}` });
      run.child.kill("SIGSTOP");
      const leaseOfA = await waitFor(async () => leases(await w.comments(n!), n!).find((l) => l.lease?.host.name === "a" && l.lease.state !== "superseded"));
      await waitFor(
        async () => {
          const mine = leases(await w.comments(n!), n!).find((l) => l.comment.id === leaseOfA.comment.id);
          return mine?.lease?.expiresAt && Date.parse(mine.lease.expiresAt) < Date.now();
        },
        { timeoutMs: 60_000, intervalMs: 250, what: "host A's lease to expire" },
      );

      const clone = await w.cloneAgain("host-b");
      const takeOver = await w.cliDone(["start", String(n)], { cwd: clone, host: hostB });
      assert.equal(takeOver.code, 0, say(takeOver));
      const before = leases(await w.comments(n!), n!);
      const taker = before.find((l) => l.lease?.host.name === "b")!;
      assert.equal(taker.lease?.takeover?.kind, "takeover-stale");
      assert.equal(taker.lease?.takeover?.from, leaseOfA.lease?.nonce);
      const pullsBefore = (await w.pulls()).length;

      run.child.kill("SIGCONT");
      const code = await run.exited;
      const output = say(run);
      assert.equal(code, 0, output);

      const after = leases(await w.comments(n!), n!);
      const displaced = after.find((l) => l.comment.id === leaseOfA.comment.id)!;
      assert.equal(displaced.lease?.state, "superseded", `the displaced lease reads ${displaced.lease?.state}\n${output}`);
      const live = standings(after, new Date()).live;
      assert.deepEqual(
        live.map((l) => l.comment.id),
        [taker.comment.id],
        "exactly one live claim: the taker's",
      );
      assert.equal((await w.pulls()).length, pullsBefore, `the woken Run opened no pull request\n${output}`);
      const issue = await w.issue(n!);
      assert.equal(issue.state, "open");
      assert.ok(!issue.labelNames.includes("ready-for-human"), "no hand-off");
      // Its own words: why it stood down, and what it wrote to GitHub doing so.
      assert.match(output, new RegExp(`#${n} yielded: stood down \\(a take-over displaced our lease\\); wrote (nothing|its lease's superseded mark put back)`));
      assert.doesNotMatch(output, /without writing/);
    });
  }
});

function leases(comments: { id: number; body: string }[], n: number): LeaseRecord[] {
  const full = comments.map((c) => ({ id: String(c.id), body: c.body, url: "", author: "ana", createdAt: "", updatedAt: "" }));
  return parseComments(full, "demo/shop", n).candidates;
}
