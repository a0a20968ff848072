/**
 * npm run bench:actions — does the played GitHub Actions workflow scale out like bench:hosts?
 *
 * The same tickets, ticket-runner.json, demo agent and sandbox CI as bench:hosts, K Hosts × 2 Lanes,
 * twice in this run: as bench:hosts starts them (K `ticket-runner run` processes, the baseline), and
 * as the workflow does (a workflow_dispatch with hosts = K played from the YAML `init --actions`
 * writes: the plan job, a checkout per job, the checksummed CLI install, the run step with the
 * workflow's own env; test/integration/actions/workflow-player.ts). No job is killed here (the
 * played-workflow test does that). Per side: tickets/min, duplicates, State files left.
 * Goal: played tickets/min within 0.8×–1.25× of the baseline's; 0 duplicates; 0 State files. Exits 1 on a miss.
 *
 *   npm run bench:actions -- [--tickets 8] [--agent-ms 1500] [--ci-ms 1000] [--hosts 3]
 */
import { performance } from "node:perf_hooks";
import { duplicateWork, endingOf, stateFilesOn, viewTickets } from "../test/reliability/chaos/observe";
import { simpleTicket } from "../test/support/run-seed";
import { playedWorld } from "../test/integration/actions/played-world";
import { AGENT_MS, CI_MS, HOSTS_CONFIG, measure, ticketName, TICKETS } from "./hosts";
import { perMinute } from "./support/host-growth";

const at = process.argv.indexOf("--hosts");
const K = at >= 0 ? Number(process.argv[at + 1]) : 3;
const LOW = 0.8;
const HIGH = 1.25;

async function played(): Promise<{ wallMs: number; merged: number; duplicates: number; stateFilesLeft: number; failures: string[] }> {
  const tickets = Array.from({ length: TICKETS }, (_, i) => simpleTicket(ticketName(i), AGENT_MS > 0 ? [`slow:${AGENT_MS}`] : []));
  const { world, t, player } = await playedWorld({ prefix: "tr-bench-actions-", name: "actions-bench", tickets, config: HOSTS_CONFIG, ciDelayMs: CI_MS });
  try {
    const started = performance.now();
    const run = player.trigger({ event: "workflow_dispatch", inputs: { hosts: String(K), lanes: "2" } });
    await run.finished;
    const wallMs = performance.now() - started;
    const failures: string[] = [];
    for (const job of [run.plan, ...run.hosts]) {
      if (!job) continue;
      const conclusion = await job.done;
      if (conclusion !== "success")
        failures.push(`${job.label} ${conclusion}${job.error ? ` (${job.error})` : ""}: ${job.results.at(-1)?.stderr.slice(-400) ?? ""}`);
    }
    const views = await viewTickets(world, t);
    return {
      wallMs,
      merged: views.filter((v) => endingOf(v) === "merged").length,
      duplicates: duplicateWork(views),
      stateFilesLeft: (await stateFilesOn(t.gitDir)).length,
      failures,
    };
  } finally {
    await player.stopAll();
    await world.stop();
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(K) || K < 1 || K > 20) throw new Error(`--hosts must be a whole number from 1 to 20, e.g. --hosts 3`);
  console.log(
    `bench:actions — ${TICKETS} tickets, K = ${K} Hosts × 2 Lanes; agent ${AGENT_MS} ms per Stage; sandbox CI ${CI_MS} ms; baseline: bench:hosts' K = ${K} in this run`,
  );
  const base = await measure(K);
  console.log(
    `bench:hosts K = ${K}: wall ${(base.wallMs / 1000).toFixed(1)} s · ${base.merged}/${TICKETS} merged · ${perMinute(base).toFixed(1)} tickets/min · duplicates ${base.duplicates} · State files left ${base.stateFilesLeft}`,
  );
  const p = await played();
  console.log(
    `played workflow, hosts = ${K}: wall ${(p.wallMs / 1000).toFixed(1)} s · ${p.merged}/${TICKETS} merged · ${perMinute(p).toFixed(1)} tickets/min · duplicates ${p.duplicates} (goal 0) · State files left ${p.stateFilesLeft} (goal 0)`,
  );
  for (const f of p.failures) console.log(`        ${f}`);
  const ratio = perMinute(p) / perMinute(base);
  console.log(`played : bench:hosts tickets/min = ${ratio.toFixed(2)}× (goal ${LOW}×–${HIGH}×: the same Runs, only started the way the workflow starts them)`);
  const missed: string[] = [];
  if (p.merged !== TICKETS || base.merged !== TICKETS) missed.push(`merged ${p.merged} played, ${base.merged} baseline, of ${TICKETS}`);
  if (p.duplicates !== 0 || base.duplicates !== 0) missed.push("duplicate Stages or pull requests");
  if (p.stateFilesLeft !== 0 || base.stateFilesLeft !== 0) missed.push("State files left");
  if (p.failures.length > 0) missed.push("a played job failed");
  if (ratio < LOW || ratio > HIGH) missed.push(`ratio ${ratio.toFixed(2)}× outside ${LOW}×–${HIGH}×`);
  if (missed.length > 0) {
    console.log(`MISSED: ${missed.join("; ")}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(`bench:actions failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
