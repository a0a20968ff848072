/**
 * One winner across Hosts (docs/claims.md): claimers with separate run roots and separate Octokit
 * clients play separate Hosts and race for one ticket through the sandbox, with read lag injected
 * so that each first read can miss the others' writes. Over RACES races: never two winners, and
 * every race ends with the winner holding the ticket on GitHub (nothing left unclaimed).
 * Then a smaller number of races between real processes (the built CLI), one per Host.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import type { Refusal } from "../../../src/core/errors";
import { FULL, useClaimsSandbox, type ClaimsTarget } from "./claims-sandbox";
import { runCli } from "./cli-process";
import { rounds } from "../../support/rounds";

/** In-process races run this many at a time; `npm test` runs one batch of them. */
const PARALLEL = 10;
const RACES = Number(process.env.CLAIMS_CROSS_RACES ?? rounds(200, PARALLEL));
const PROCESS_RACES = Number(process.env.CLAIMS_PROCESS_RACES ?? rounds(12, 2));
const READ_LAG_MS = 150;
const SETTLE_MS = 450;

async function finalState(s: ClaimsTarget, n: number) {
  const thread = await s.tracker("sandbox-admin").readIssueThread(n);
  const leases = thread!.comments.flatMap((c) => {
    const p = parseLeaseComment(c.body, { repo: FULL, issue: n });
    return p.kind === "lease" ? [p.lease] : [];
  });
  return { issue: thread!.issue, live: leases.filter((l) => l.state === "claimed" || l.state === "running"), all: leases };
}

describe("claims (integration): races across Hosts with read lag", function () {
  this.timeout(15 * 60_000);
  const s = useClaimsSandbox({ users: { alice: "write", bob: "write", carol: "write" } });

  it(`${RACES} in-process races of 3 Hosts: never two winners, never unclaimed`, async () => {
    await s.sandbox.admin.setFaults({ readLagMs: READ_LAG_MS });
    const users = ["alice", "bob", "carol"];
    let bothWrote = 0;
    let races = 0;
    const t0 = Date.now();
    while (races < RACES) {
      const batch = Math.min(PARALLEL, RACES - races);
      const tickets = await Promise.all(Array.from({ length: batch }, (_, i) => s.issue(`cross ${races + i}`)));
      // Let the new issues become visible through the lag before the race starts.
      await new Promise((r) => setTimeout(r, READ_LAG_MS + 50));
      await Promise.all(
        tickets.map(async (n, i) => {
          const claimers = users.map((user, h) => s.claimer({ user: (races + i) % 2 === 0 ? user : "alice", host: `h${h}-${n}`, settleMs: SETTLE_MS }));
          const results = await Promise.allSettled(claimers.map((c) => c.gate.take(n)));
          const winners = results.filter((r) => r.status === "fulfilled");
          const losers = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason as Refusal);
          assert.equal(winners.length, 1, `#${n}: ${winners.length} winners; losers: ${losers.map((l) => l.message).join(" | ")}`);
          for (const l of losers) assert.ok(["race-yielded", "claimed-elsewhere"].includes(l.reason), `#${n}: unexpected ${l.reason}: ${l.message}`);
          if (losers.some((l) => l.reason === "race-yielded")) bothWrote++;
        }),
      );
      await new Promise((r) => setTimeout(r, READ_LAG_MS + 50));
      for (const n of tickets) {
        const st = await finalState(s, n);
        assert.equal(st.live.length, 1, `#${n} has ${st.live.length} live leases`);
        const holder = st.live[0]!;
        assert.ok(st.issue.labels.includes("in-progress"), `#${n} lost in-progress`);
        assert.ok(!st.issue.labels.includes("ready-for-agent"), `#${n} still ready`);
        assert.ok(st.issue.assignees.includes(holder.user), `#${n}: holder ${holder.user} not assigned (${st.issue.assignees.join(",")})`);
        assert.ok(st.issue.labels.includes(`claim:${holder.host.name}`), `#${n}: holder's host label missing`);
        const otherHostLabels = st.issue.labels.filter((l) => l.startsWith("claim:") && l !== `claim:${holder.host.name}`);
        assert.deepEqual(otherHostLabels, [], `#${n}: losers left host labels`);
      }
      races += batch;
    }
    await s.sandbox.admin.setFaults({ readLagMs: 0 });
    console.log(
      `      ${RACES} races (3 Hosts each, read lag ${READ_LAG_MS} ms, settle ${SETTLE_MS} ms): ${bothWrote} had 2+ writers (missed each other's first read); 0 double wins; ${Math.round((Date.now() - t0) / RACES)} ms/race at ${PARALLEL} in parallel`,
    );
    assert.ok(bothWrote > RACES / 4, `the read lag should make most races real double writes (got ${bothWrote})`);
  });

  it(`${PROCESS_RACES} races between real processes on separate Hosts`, async () => {
    await s.sandbox.admin.setFaults({ readLagMs: READ_LAG_MS });
    const hosts = ["alice", "bob", "carol"].map((user, i) => ({
      user,
      dir: join(s.dir, `proc-host-${i}`),
      clone: join(s.dir, `proc-clone-${i}`),
      session: `proc-host-${i}`,
    }));
    for (const [i, h] of hosts.entries()) await s.clone(h.user, `proc-clone-${i}`, { lease: { settleMs: SETTLE_MS } });
    let doubleWrites = 0;
    for (let i = 0; i < PROCESS_RACES; i++) {
      const n = await s.issue(`process race ${i}`);
      await new Promise((r) => setTimeout(r, READ_LAG_MS + 50));
      const results = await Promise.all(
        hosts.map((h) =>
          runCli(["start", String(n)], {
            cwd: h.clone,
            env: {
              TICKET_RUNNER_TOKEN: s.tokens[h.user]!,
              TICKET_RUNNER_RUN_ROOT: h.dir,
              TICKET_RUNNER_HOST_SESSION: h.session,
              TICKET_RUNNER_HOST_NAME: h.session,
            },
          }),
        ),
      );
      const won = results.filter((r) => r.code === 0);
      assert.equal(won.length, 1, results.map((r) => `${r.code}: ${r.stdout}${r.stderr}`).join("\n"));
      assert.equal(results.filter((r) => r.code === 2).length, hosts.length - 1);
      if (results.some((r) => /another claim won the race/.test(r.stderr))) doubleWrites++;
      await new Promise((r) => setTimeout(r, READ_LAG_MS + 50));
      const st = await finalState(s, n);
      assert.equal(st.live.length, 1);
    }
    await s.sandbox.admin.setFaults({ readLagMs: 0 });
    console.log(`      ${PROCESS_RACES} process races: ${doubleWrites} decided by read-back (both wrote), 0 double wins`);
  });
});
