/**
 * A dead Host: lockScope "host", Hosts A and B (one bot user, separate clones, run roots and Host
 * ids) run on one Target at once. Once A is inside a Stage, A's whole process tree is SIGKILLed.
 * B finishes what it holds; B's next Runs take A's tickets over once their leases expire, and
 * finish them. Then A comes back and takes its own abandoned lock over, finding nothing to do.
 * Expected: every ticket ends exactly once, A's tickets each go to B by `takeover-stale`, B never
 * runs the implement Stage again for a ticket A had implemented, no ticket has two open PRs, no
 * lease stays live, every lock file is free at the end.
 */
import { parseComments } from "../../../src/core/claims/claim-view";
import { standings } from "../../../src/core/claims/lease-standing";
import { PROGRESS_MARKER } from "../../../src/core/run/progress-comment";
import { waitFor } from "../../support/wait-for";
import { noLiveLease } from "./kill-trial";
import { stateRecordRef } from "../../../src/core/schemas/state-file";
import { auditPushes, checkEndings, checkLeases, checkLock, checkOpenPrs, checkStateFiles, endingOf, viewTickets } from "./observe";
import { killTree, startRun } from "./run-process";
import type { Scenario } from "./scenarios";
import { gitOk, gitOut } from "./world";

const CONFIG = {
  lanes: 2,
  lockScope: "host",
  merge: { method: "merge" },
  lease: { settleMs: 200, ttlMinutes: 0.25, heartbeatMinutes: 0.05 },
  ci: { graceMinutes: 1, pollSeconds: 1 },
};

async function stateOf(gitDir: string, ticket: number): Promise<string | null> {
  const file = `${stateRecordRef(ticket)}:ticket-${ticket}.json`;
  if (!(await gitOk(gitDir, ["cat-file", "-e", file]))) return null;
  return (JSON.parse(await gitOut(gitDir, ["show", file])) as { state: string }).state;
}

export const deadHostScenario: Scenario = async (world, o) => {
  const say = o.log ?? (() => undefined);
  const target = await world.target({ name: "dead-host", config: CONFIG });
  const teammate = { TICKET_RUNNER_DEMO_TEAMMATE_TOKEN: await world.user("teammate-dead-host", target.full) };
  const [a, b] = [await world.host(target, "host-a", teammate), await world.host(target, "host-b", teammate)];
  const args = ["--repo", target.full, "--api-url", world.sandbox.apiUrl];
  const violations: string[] = [];

  const runA = startRun(a.clone, a.env, args);
  const runB = startRun(b.clone, b.env, args);
  // Kill A once it holds a ticket past its implement Stage (so "nothing runs twice" has something
  // to prove: B must resume it at the Checks), i.e. a lease of host-a running a later Stage.
  const heldByA = await waitFor(
    async () => {
      const views = await viewTickets(world, target);
      const running = (v: (typeof views)[number]) =>
        parseComments(v.comments, target.full, v.number).candidates.filter((r) => r.lease?.host.name === "host-a" && r.lease.state === "running");
      if (!views.some((v) => running(v).some((r) => r.lease?.stage && r.lease.stage !== "implement"))) return null;
      return views.filter((v) => running(v).length > 0).map((v) => v.number);
    },
    { timeoutMs: 120_000, intervalMs: 200, what: "host A to be inside a Stage" },
  );
  const statesAtKill = new Map<number, string | null>();
  const killed = await killTree(runA);
  for (const n of heldByA) statesAtKill.set(n, await stateOf(target.gitDir, n));
  say(`dead-host: killed host A (${killed} processes) holding ${heldByA.map((n) => `#${n} (${statesAtKill.get(n)})`).join(", ")}`);
  const first = await runB.exited;
  say(`dead-host: host B's first Run exited ${first.code}`);

  // B runs again (as an operator's schedule would) until every ticket has ended.
  let runsOfB = 1;
  for (;;) {
    const views = await viewTickets(world, target);
    if (views.every((v) => endingOf(v) === "merged" || endingOf(v) === "handed-off") || runsOfB >= 8) break;
    await waitFor(async () => noLiveLease(target, await viewTickets(world, target)), {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      what: "host A's leases to expire",
    });
    const again = startRun(b.clone, b.env, args);
    const r = await again.exited;
    runsOfB += 1;
    say(`dead-host: host B's Run ${runsOfB} exited ${r.code}`);
    if (r.code !== 0 && r.code !== 1) violations.push(`host B's Run ${runsOfB} exited ${r.code}: ${again.stderr().trim().split("\n").slice(-2).join(" | ")}`);
  }
  // Host A comes back: its lock is abandoned (its process is gone), so it takes it over, and finds nothing to do.
  const back = startRun(a.clone, a.env, args);
  const backExit = await back.exited;
  if (backExit.code !== 0) violations.push(`host A, back, exited ${backExit.code}: ${back.stderr().trim().split("\n").slice(-2).join(" | ")}`);

  const views = await viewTickets(world, target);
  violations.push(
    ...checkEndings(views),
    ...checkOpenPrs(views),
    ...checkLeases(target, views),
    ...(await checkStateFiles(target, views)),
    ...(await checkLock(target)),
  );
  violations.push(...(await auditPushes(world, target)).lost);
  let takenOver = 0;
  for (const n of heldByA) {
    const v = views.find((x) => x.number === n)!;
    const recs = parseComments(v.comments, target.full, n).candidates;
    const aLease = recs.find((r) => r.lease?.host.name === "host-a");
    const bLease = recs.find((r) => r.lease?.host.name === "host-b" && r.lease.takeover?.from === aLease?.lease?.nonce);
    if (!bLease) violations.push(`#${n}: no lease of host B took over host A's (${aLease?.comment.url ?? "none"})`);
    else {
      takenOver += 1;
      if (bLease.lease?.takeover?.kind !== "takeover-stale") violations.push(`#${n}: taken over as ${bLease.lease?.takeover?.kind}, not takeover-stale`);
    }
    if (standings(recs, new Date()).displaced.length + standings(recs, new Date()).records.length === 0)
      violations.push(`#${n}: host A's lease was never superseded`);
    // Nothing runs twice: a ticket A had implemented is resumed at the Checks, not implemented again.
    const progress = v.comments.find((c) => c.body.startsWith(PROGRESS_MARKER))?.body ?? "";
    const bSections = progress.split("<!-- ticket-runner:progress-run ").filter((s) => s.includes("on `host-b`"));
    if (statesAtKill.get(n) === "implemented" && bSections.some((s) => /^\| implement \|/m.test(s)))
      violations.push(`#${n}: host B ran implement again although host A had implemented it`);
  }
  const summary = `host A killed holding ${heldByA.map((n) => `#${n}`).join(" ")}; host B took ${takenOver} over after lease expiry in ${runsOfB} Runs; endings ${views.map(endingOf).join(" ")}; ${violations.length} violations`;
  return {
    summary,
    violations,
    figureId: "chaos.dead-host",
    figure: {
      what: 'lockScope "host": a dead Host\'s tickets are taken over after lease expiry and finished; nothing runs twice',
      test: "test/reliability/chaos/dead-host.ts",
      trials: 1,
      kills: 1,
      losses: violations.length,
      notes: `${heldByA.length} tickets held by the dead Host, ${takenOver} taken over by the other`,
    },
  };
};
