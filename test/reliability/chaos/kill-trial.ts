/**
 * Kill anywhere, one trial: a fresh Target with the 6 demo tickets and 2 Lanes, two Hosts (clones
 * with their own run roots and Host ids, lockScope "host", one bot user). Runs are started one at
 * a time on a Host the seed picks; most are killed (the whole process tree, SIGKILL) at a random
 * moment, until a Run ends by itself with nothing left to do. Then every invariant is checked.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseComments } from "../../../src/core/claims/claim-view";
import { standings } from "../../../src/core/claims/lease-standing";
import { prng } from "../../support/prng";
import { waitFor } from "../../support/wait-for";
import { auditPushes, checkEndings, checkLeases, checkLock, checkOpenPrs, checkStateFiles, endingOf, viewTickets, type Ending } from "./observe";
import { killTree, startRun, type RunProcess } from "./run-process";
import type { ChaosTarget, ChaosWorld, HostSpec } from "./world";
import type { TicketView } from "./observe";

/** True when no ticket has a live lease (stale ones, left by a killed Run, may be taken over). */
export function noLiveLease(t: ChaosTarget, views: TicketView[]): boolean {
  return views.every((v) => standings(parseComments(v.comments, t.full, v.number).candidates, new Date()).live.length === 0);
}

export interface KillTrialOptions {
  seed: number;
  /** Probability that a Run is killed (default 0.75). */
  killRate?: number;
  /** Probability that a Run happens on the second Host (default 0.3). */
  otherHostRate?: number;
  /** Upper bound of the random kill moment, ms after start (default 16 s, then 1.2 x the first whole Run). */
  maxKillMs?: number;
  /** Give up after this many Runs (a liveness failure). Default 40. */
  maxRuns?: number;
  log?: (line: string) => void;
}

export interface KillTrialResult {
  seed: number;
  runs: number;
  kills: number;
  killsOnOtherHost: number;
  processesKilled: number;
  endings: Record<number, Ending>;
  handoffReasons: Record<number, string>;
  pushed: number;
  pushedRebased: number;
  violations: string[];
  wallMs: number;
}

export const FAILURES_DIR = resolve(__dirname, "../../../test-results/reliability/failures");

const CHAOS_CONFIG = {
  lanes: 2,
  lockScope: "host",
  // A merge commit keeps every pushed commit reachable from the base, so "nothing lost" can be checked.
  merge: { method: "merge" },
  lease: { settleMs: 200, ttlMinutes: 0.5, heartbeatMinutes: 0.1 },
  ci: { graceMinutes: 1, pollSeconds: 1 },
};

async function waitOrTimeout(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([p.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
  clearTimeout(timer);
  return done;
}

export async function killTrial(world: ChaosWorld, o: KillTrialOptions): Promise<KillTrialResult> {
  const started = Date.now();
  const rand = prng(o.seed);
  const say = o.log ?? (() => undefined);
  const target = await world.target({ name: `kill-${o.seed}`, config: CHAOS_CONFIG });
  // The demo's "conflict" ticket has a teammate push to main mid-Stage; the teammate is a writer too.
  const teammate = { TICKET_RUNNER_DEMO_TEAMMATE_TOKEN: await world.user(`teammate-${o.seed}`, target.full) };
  const hosts: HostSpec[] = [await world.host(target, "host-a", teammate), await world.host(target, "host-b", teammate)];
  const result: KillTrialResult = {
    seed: o.seed,
    runs: 0,
    kills: 0,
    killsOnOtherHost: 0,
    processesKilled: 0,
    endings: {},
    handoffReasons: {},
    pushed: 0,
    pushedRebased: 0,
    violations: [],
    wallMs: 0,
  };
  const killRate = o.killRate ?? 0.75;
  const maxRuns = o.maxRuns ?? 40;
  let maxKillMs = o.maxKillMs ?? 16_000;
  let finished = false;
  const transcript: string[] = [];
  let calibrated = o.maxKillMs !== undefined;

  while (!finished && result.runs < maxRuns) {
    const onOther = rand() < (o.otherHostRate ?? 0.3);
    const host = hosts[onOther ? 1 : 0]!;
    const kill = rand() < killRate;
    const killAt = 300 + rand() * maxKillMs;
    result.runs += 1;
    const run: RunProcess = startRun(host.clone, host.env, ["--repo", target.full, "--api-url", world.sandbox.apiUrl]);
    const keepOutput = (what: string) =>
      transcript.push(`=== run ${result.runs} on ${host.name}: ${what}\n--- stdout\n${run.stdout()}\n--- stderr\n${run.stderr()}`);
    const endedAlone = kill ? await waitOrTimeout(run.exited, killAt) : await waitOrTimeout(run.exited, 15 * 60_000);
    if (!endedAlone) {
      result.processesKilled += await killTree(run);
      if (kill) {
        result.kills += 1;
        if (onOther) result.killsOnOtherHost += 1;
      } else result.violations.push(`run ${result.runs} on ${host.name} hung for 15 minutes`);
      say(`  seed ${o.seed} run ${result.runs} on ${host.name}: killed at ${Math.round(killAt)} ms`);
      keepOutput(`killed at ${Math.round(killAt)} ms`);
      const views = await viewTickets(world, target);
      for (const v of checkOpenPrs(views)) result.violations.push(`after kill ${result.kills}: ${v}`);
      continue;
    }
    const { code } = await run.exited;
    const took = Date.now() - run.startedAt;
    // Kill moments are drawn up to a little over what the first whole Run took here.
    if (!calibrated && (code === 0 || code === 1) && result.kills === 0) {
      calibrated = true;
      maxKillMs = Math.max(2_000, took * 1.2);
    }
    say(`  seed ${o.seed} run ${result.runs} on ${host.name}: exited ${code} after ${took} ms`);
    keepOutput(`exited ${code} after ${took} ms`);
    if (code !== 0 && code !== 1) {
      const why = (run.stderr() || run.stdout()).trim().split("\n").slice(-3).join(" | ");
      // A refusal is allowed (e.g. waiting for a lease), a crash is not.
      if (code !== 2) result.violations.push(`run ${result.runs} on ${host.name} exited ${code}: ${why}`);
      else say(`    refused: ${why}`);
    }
    const views = await viewTickets(world, target);
    for (const v of checkOpenPrs(views)) result.violations.push(`after run ${result.runs}: ${v}`);
    finished = views.every((v) => endingOf(v) === "merged" || endingOf(v) === "handed-off");
    if (!finished) {
      // What is left may be held by a Run killed on the other Host: its leases must expire before
      // any Run may take those tickets, so wait for that rather than spin through Runs.
      await waitFor(async () => noLiveLease(target, await viewTickets(world, target)), {
        timeoutMs: 120_000,
        intervalMs: 1_000,
        what: "the killed Runs' leases to expire",
      });
    }
  }

  // Every Host comes back once: a Run takes over the lock its killed Run left (same Host, process
  // gone) by itself, finds nothing to do, and frees it.
  for (const host of hosts) {
    const run = startRun(host.clone, host.env, ["--repo", target.full, "--api-url", world.sandbox.apiUrl]);
    const { code } = await run.exited;
    transcript.push(`=== final run on ${host.name}: exited ${code}\n--- stdout\n${run.stdout()}\n--- stderr\n${run.stderr()}`);
    if (code !== 0)
      result.violations.push(`the final Run on ${host.name} (nothing left to do) exited ${code}: ${run.stderr().trim().split("\n").slice(-2).join(" | ")}`);
  }
  const views = await viewTickets(world, target);
  if (!finished) result.violations.push(`not finished after ${result.runs} Runs`);
  result.violations.push(
    ...checkEndings(views),
    ...checkOpenPrs(views),
    ...checkLeases(target, views),
    ...(await checkStateFiles(target, views)),
    ...(await checkLock(target)),
  );
  const audit = await auditPushes(world, target);
  result.pushed = audit.pushed;
  result.pushedRebased = audit.rebased;
  result.violations.push(...audit.lost);
  for (const v of views) {
    result.endings[v.number] = endingOf(v);
    const h = v.comments.find((c) => c.body.startsWith("<!-- ticket-runner:handoff -->"));
    if (h) result.handoffReasons[v.number] = /^- Failure: (.+)$/m.exec(h.body)?.[1] ?? "";
  }
  result.wallMs = Date.now() - started;
  if (result.violations.length > 0) {
    // Everything needed to replay and read the failure: every Run's output and what the board ended as.
    const dir = join(FAILURES_DIR, `kill-seed-${o.seed}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "runs.txt"), transcript.join("\n\n"));
    writeFileSync(join(dir, "tickets.json"), JSON.stringify(views, null, 2));
    writeFileSync(join(dir, "ref-updates.txt"), readFileSync(target.pushLog, "utf8"));
    writeFileSync(join(dir, "result.json"), JSON.stringify(result, null, 2));
    say(`  seed ${o.seed}: ${result.violations.length} violations; details in ${dir}`);
  }
  return result;
}
