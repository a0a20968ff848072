/**
 * npm run bench:hosts — does throughput grow with Hosts?
 *
 * 24 tickets on one Target in one sandbox; K = 1, 2, 4 Hosts, each a real `ticket-runner run`
 * process (dist/cli.js) with its own clone, run root and Host id, 2 Lanes, `lockScope: "host"`.
 * The demo agent takes --agent-ms per Stage (default 3000); CI is the sandbox's CI taking --ci-ms
 * (default 3000), polled every second; the Checks are one cheap real process (`node -e 0`). The demo
 * project's own test suite is left out on purpose: on a 2-core machine its CPU (a node process per
 * test file, twice per ticket) would be the bound, and this bench measures the product, not the project.
 * Per K: wall time, tickets/min, duplicates (a ticket implemented twice, or two pull requests:
 * must be 0), State files left on the remote (must be 0), takes lost to another Host (must be 0),
 * GitHub writes per ticket (at most the budget of docs/endings.md), where a ticket's time goes (the Stage lines each Run printed), and CPU per
 * ticket process by process (each Run's TICKET_RUNNER_CPU_FILE report, and the bench's cgroup for
 * what runs inside the bwrap sandboxes; ADR 0350).
 * Goal: K = 4 : K = 1 tickets/min ≥ 3.5× (the baseline is K = 1 of this same run). Then the same
 * rows with the instant agent (--instant-hosts, ADR 0511), whose goal is that tickets/min grows with
 * every Host added: with nothing to wait for in the agent, that is where Hosts used to get slower.
 * Exits 1 on a miss.
 *
 *   npm run bench:hosts -- [--tickets 24] [--agent-ms 3000] [--ci-ms 3000] [--hosts 1,2,4] [--instant-hosts 1,2,4 | ""] [--dump <dir>]
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { demoTicketBody, simpleTicket } from "../test/support/run-seed";
import { duplicateWork, endingOf, stateFilesOn, viewTickets } from "../test/reliability/chaos/observe";
import { startRun } from "../test/reliability/chaos/run-process";
import { ChaosWorld } from "../test/reliability/chaos/world";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CpuReport } from "../src/adapters/spawner/cpu-report";
import { processTreeSplitMs } from "./cpu";
import { CpuGroup } from "./cgroup";
import { stageSeconds } from "./support/stage-lines";
import { machineSpeedLine } from "./support/machine-speed";
import { betweenStages, betweenStagesLine } from "./support/between-stages";
import { growthMisses, perMinute } from "./support/host-growth";
import { WRITE_BUDGET } from "./support/write-budget";
import type { BetweenStages } from "./support/between-stages";

/**
 * The CPU of every process this one started: those reaped, and those alive (the sandbox, which is
 * this process, starts its git through a spawner that lives on between requests: ADR 0391).
 */
function childrenTreeMs(): number {
  return processTreeSplitMs(process.pid).reaped;
}

/** Counts the CPU of the processes inside the agents' and Checks' bwrap sandboxes, which no parent's counter sees (null: not on this Host). */
const group = require.main === module ? CpuGroup.join() : null;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

export const TICKETS = Number(arg("--tickets", "24"));
export const AGENT_MS = Number(arg("--agent-ms", "3000"));
export const CI_MS = Number(arg("--ci-ms", "3000"));
/** `--hosts 1,2,4`: Host counts, each a whole number ≥ 1; "" for none. */
function hostList(name: string, fallback: string): number[] {
  const text = arg(name, fallback);
  const ks = text.split(",").filter(Boolean).map(Number);
  if (ks.some((k) => !Number.isInteger(k) || k < 1)) throw new Error(`bench:hosts: ${name} "${text}" is not a list of Host counts; write it as ${name} 1,2,4`);
  return ks;
}
const HOSTS = hostList("--hosts", "1,2,4");
/** The instant agent's rows; none when the main rows are the instant agent's already. */
const INSTANT_HOSTS = AGENT_MS > 0 ? hostList("--instant-hosts", "1,2,4") : [];
/** --dump <dir>: each Run's output (k<K>-host-<i>.log) and timeline (.json) are written there, to look at by hand. */
const DUMP = arg("--dump", "") || null;
if (DUMP) mkdirSync(DUMP, { recursive: true });
const GOAL_RATIO = 3.5;

export interface Row {
  k: number;
  wallMs: number;
  merged: number;
  duplicates: number;
  stateFilesLeft: number;
  takesLost: number;
  writesPerTicket: number;
  /** Stage -> seconds summed over the tickets, from the Runs' own Stage lines. */
  stageSeconds: Map<string, number>;
  /** The steps between Stages, from the Runs' own events; null without every Run's report. */
  between: BetweenStages | null;
  /** Seconds from the Runs' start to their first Lane (earliest, latest Host), and from the last merge to the last exit. */
  firstLane: [number, number];
  /** A Run's start, to its first Lane, mean over the Runs (ADR 0440): CPU ms of its own process and of its git, and its git processes; null without the reports. */
  start: { ownMs: number; gitMs: number; gitProcesses: number } | null;
  tail: number;
  /**
   * CPU seconds of every process of the row: the Runs and all they started (reaped children of this
   * process), this process, which is the sandbox (GitHub's side) and its git processes, and (counted
   * by a cgroup, where there is one) what ran inside the agents' and Checks' bwrap sandboxes.
   */
  cpuSeconds: number;
  /** The same CPU, process by process (ms, summed over the Runs; from each Run's TICKET_RUNNER_CPU_FILE report). */
  cpu: CpuParts | null;
  /** The 1-minute load average when the row started and ended. */
  load: [number, number];
  failures: string[];
}

/** The Target's ticket-runner.json here and in bench:actions. */
export const HOSTS_CONFIG = {
  lanes: 2,
  lockScope: "host",
  checks: [["node", "-e", "0"]],
  merge: { method: "squash" },
  ci: { pollSeconds: 1, graceMinutes: 2, timeoutMinutes: 10 },
  lease: { settleMs: 200 },
};

const NAMES = "abcdefghijklmnopqrstuvwxyz";

export function ticketName(i: number): string {
  return `hosts${NAMES[i % 26]}${NAMES[Math.floor(i / 26) % 26]}`;
}

/** Seconds since `startedAt` of a "[hh:mm:ss]" stamp printed by a Run today (whole seconds, local time). */
function stampSeconds(stamp: string, startedAt: number): number {
  const [h, m, sec] = stamp.split(":").map(Number);
  const d = new Date(startedAt);
  d.setHours(h!, m!, sec!, 0);
  return (d.getTime() - startedAt) / 1000;
}

/** When each Run's first Lane started, and how long after the last merge the last Run exited (1 s resolution). */
function startAndTail(outputs: string[], startedAt: number, wallMs: number): { firstLane: [number, number]; tail: number } {
  const firsts: number[] = [];
  let lastMerge = 0;
  for (const out of outputs) {
    const first = /^\[([0-9:]+)\] lane \d+: /m.exec(out);
    if (first) firsts.push(stampSeconds(first[1]!, startedAt));
    for (const m of out.matchAll(/^\[([0-9:]+)\] #\d+ merged: /gm)) lastMerge = Math.max(lastMerge, stampSeconds(m[1]!, startedAt));
  }
  return { firstLane: [Math.min(...firsts), Math.max(...firsts)], tail: wallMs / 1000 - lastMerge };
}

export interface CpuParts {
  run: number;
  git: number;
  agent: number;
  check: number;
  spawner: number;
  sandbox: number;
  sandboxGit: number;
  /** The processes inside the bwrap sandboxes (the agents, the Checks): the cgroup's count less every process above; null without one. */
  insideBwrap: number | null;
  processes: { git: number; agent: number; check: number };
}

/** The Runs' own reports of their CPU, and this process's (the sandbox and its git), split by process. */
function cpuParts(reports: CpuReport[], sandboxMs: number, childrenMs: number, groupMs: number | null): CpuParts | null {
  if (reports.some((r) => r.reapedMs === null)) return null;
  const sum = (f: (r: CpuReport) => number) => reports.reduce((a, r) => a + f(r), 0);
  const kind = (k: "git" | "agent" | "check") => sum((r) => r.counts.byKind[k].cpuMs);
  const runTrees = sum((r) => r.ownMs + r.reapedMs!);
  return {
    run: sum((r) => r.ownMs),
    git: kind("git"),
    agent: kind("agent"),
    check: kind("check"),
    spawner: sum((r) => r.reapedMs!) - kind("git") - kind("agent") - kind("check"),
    sandbox: sandboxMs,
    sandboxGit: childrenMs - runTrees,
    insideBwrap: groupMs === null ? null : Math.max(0, groupMs - sandboxMs - childrenMs),
    processes: {
      git: sum((r) => r.counts.byKind.git.processes),
      agent: sum((r) => r.counts.byKind.agent.processes),
      check: sum((r) => r.counts.byKind.check.processes),
    },
  };
}

/** One line of CPU per ticket, process by process. */
export function cpuPartsLine(c: CpuParts, tickets: number): string {
  const t = (ms: number) => `${(ms / tickets).toFixed(0)} ms`;
  const n = (x: number) => (x / tickets).toFixed(1);
  const inside =
    c.insideBwrap === null ? "inside the sandboxes not counted (no cgroup to count them on this Host)" : `inside the sandboxes ${t(c.insideBwrap)}`;
  const total = c.run + c.git + c.agent + c.check + c.spawner + c.sandbox + c.sandboxGit + (c.insideBwrap ?? 0);
  return `total ${t(total)}${c.insideBwrap === null ? "+" : ""} = the Runs' processes ${t(c.run)} · git ${t(c.git)} (${n(c.processes.git)} processes) · agent and Checks (${n(c.processes.agent)} + ${n(c.processes.check)}): bwrap's own ${t(c.agent + c.check)}, ${inside} · the spawners themselves ${t(c.spawner)} · sandbox: its process ${t(c.sandbox)}, its git ${t(c.sandboxGit)}`;
}

export async function measure(k: number, agentMs = AGENT_MS): Promise<Row> {
  const world = await ChaosWorld.start("tr-bench-hosts-");
  try {
    const behaviours = agentMs > 0 ? [`slow:${agentMs}`] : [];
    const issues = Array.from({ length: TICKETS }, (_, i) => {
      const t = simpleTicket(ticketName(i), behaviours);
      return { title: t.title, body: demoTicketBody(t), labels: ["ready-for-agent"] };
    });
    const t = await world.target({
      name: `hosts-k${k}`,
      issues,
      config: HOSTS_CONFIG,
      ci: false,
      // Nothing here reads the trials' record of ref updates; its hook would put two shells and a
      // `git update-ref` under each of the sandbox's own ref writes (ADR 0503).
      recordRefUpdates: false,
    });
    await world.sandbox.admin.setFaults({ rateLimit: 1_000_000 });
    await world.sandbox.admin.scriptCi(t.full, { conclusion: "success", delayMs: CI_MS });
    const hosts = [];
    for (let i = 0; i < k; i++) hosts.push(await world.host(t, `host-${i + 1}`));
    await world.sandbox.admin.clearRequestLog();

    const load0 = loadavg()[0]!;
    const group0 = group?.usageMs() ?? null;
    const cpu0 = process.cpuUsage();
    const children0 = childrenTreeMs();
    const startedAt = Date.now();
    const started = performance.now();
    const cpuFiles = hosts.map((h) => join(h.runRoot, "..", `${h.name}-cpu.json`));
    const runs = hosts.map((h, i) =>
      startRun(h.clone, { ...h.env, TICKET_RUNNER_CPU_FILE: cpuFiles[i]! }, ["--repo", t.full, "--api-url", world.sandbox.apiUrl]),
    );
    const exitedAt: number[] = [];
    const exits = await Promise.all(runs.map((r, i) => r.exited.then((e) => ((exitedAt[i] = Date.now()), e))));
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const childrenMs = childrenTreeMs() - children0;
    const reports: CpuReport[] = [];
    const timelines: Parameters<typeof betweenStages>[0] = [];
    for (const [i, file] of cpuFiles.entries()) {
      try {
        const report = JSON.parse(readFileSync(file, "utf8")) as CpuReport;
        reports.push(report);
        timelines.push({ timeline: report.timeline, startedMs: runs[i]!.startedAt, exitedMs: exitedAt[i]! });
        if (DUMP)
          writeFileSync(
            join(DUMP, `${agentMs > 0 ? "" : "instant-"}k${k}-host-${i + 1}.json`),
            JSON.stringify({ startedAt: runs[i]!.startedAt, exitedAt: exitedAt[i], timeline: report.timeline }, null, 1),
          );
      } catch {
        // a Run that failed wrote none: its failure is reported below
      }
    }
    const groupMs = group0 === null || !group ? null : group.usageMs() - group0;
    const starts = reports.map((r) => r.firstLane).filter((f) => f !== null && f !== undefined);
    const mean = (f: (x: NonNullable<CpuReport["firstLane"]>) => number) => starts.reduce((a, x) => a + f(x), 0) / starts.length;
    const start = starts.length === k ? { ownMs: mean((x) => x.ownMs), gitMs: mean((x) => x.gitMs), gitProcesses: mean((x) => x.gitProcesses) } : null;
    const parts = reports.length === k ? cpuParts(reports, (cpu.user + cpu.system) / 1000, childrenMs, groupMs) : null;
    // With the cgroup, every process; without it, all but what ran inside the bwrap sandboxes.
    const cpuSeconds = (groupMs ?? (cpu.user + cpu.system) / 1000 + childrenMs) / 1000;
    const load: [number, number] = [load0, loadavg()[0]!];

    const views = await viewTickets(world, t);
    const merged = views.filter((v) => endingOf(v) === "merged").length;
    const outputs = runs.map((r) => `${r.stdout()}\n${r.stderr()}`);
    if (DUMP) outputs.forEach((o, i) => writeFileSync(join(DUMP, `${agentMs > 0 ? "" : "instant-"}k${k}-host-${i + 1}.log`), o));
    const takesLost = outputs.map((o) => (o.match(/^ {2}#\d+ +skipped /gm) ?? []).length).reduce((a, b) => a + b, 0);
    const log = await world.sandbox.admin.requestLog();
    const writes = log.filter((r) => r.user === t.login && r.write === true).length;
    const failures: string[] = [];
    exits.forEach((e, i) => {
      if (e.code !== 0) failures.push(`host-${i + 1} exited ${e.code ?? e.signal}: ${runs[i]!.stderr().slice(-600)}`);
    });
    return {
      k,
      wallMs,
      merged,
      duplicates: duplicateWork(views),
      stateFilesLeft: (await stateFilesOn(t.gitDir)).length,
      takesLost,
      writesPerTicket: writes / Math.max(1, merged),
      stageSeconds: stageSeconds(outputs),
      between: timelines.length === k ? betweenStages(timelines) : null,
      start,
      ...startAndTail(outputs, startedAt, wallMs),
      cpuSeconds,
      cpu: parts,
      load,
      failures,
    };
  } finally {
    await world.stop();
  }
}

/** Prints one row: its figures, where a ticket's time goes and its CPU. */
function printRow(r: Row): void {
  const where = [...r.stageSeconds]
    .sort((a, b) => b[1] - a[1])
    .map(([stage, s]) => `${stage} ${(s / Math.max(1, r.merged)).toFixed(1)}`)
    .join(" · ");
  console.log(
    `K = ${r.k}: wall ${(r.wallMs / 1000).toFixed(1)} s · ${r.merged}/${TICKETS} merged · ${perMinute(r).toFixed(1)} tickets/min · duplicates ${r.duplicates} (goal 0) · State files left ${r.stateFilesLeft} (goal 0) · takes lost to another Host ${r.takesLost} (goal 0) · GitHub writes ${r.writesPerTicket.toFixed(1)} per ticket (goal ≤ ${WRITE_BUDGET})`,
  );
  console.log(`        where a ticket's time goes (s per ticket, Stage lines of the Runs): ${where}`);
  console.log(
    `        first Lane ${r.firstLane[0].toFixed(0)}–${r.firstLane[1].toFixed(0)} s after the Runs started · last Run out ${r.tail.toFixed(0)} s after the last merge · CPU ${(r.cpuSeconds / Math.max(1, r.merged)).toFixed(2)} s per ticket, every process (Runs, git, agents, Checks, sandbox${r.cpu?.insideBwrap === null ? "; not what ran inside bwrap: no cgroup here" : ""}) · ${(r.cpuSeconds / (r.wallMs / 1000)).toFixed(2)} of ${cpus().length} cores busy with this bench · load ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}`,
  );
  if (r.between) console.log(`        between the Stages (the Runs' events), ${betweenStagesLine(r.between, r.k)}`);
  if (r.start)
    console.log(
      `        a Run's start, to its first Lane (mean of ${r.k}): ${(r.start.ownMs / 1000).toFixed(2)} CPU-s in its own process, git ${(r.start.gitMs / 1000).toFixed(2)} CPU-s in ${r.start.gitProcesses.toFixed(0)} processes`,
    );
  if (r.cpu) console.log(`        CPU per ticket, process by process: ${cpuPartsLine(r.cpu, Math.max(1, r.merged))}`);
  for (const f of r.failures) console.log(`        ${f}`);
}

/** What every row must show, whatever its agent: all merged, no duplicate work, no State file left, no Run failed. */
function rowMisses(rows: Row[], label: string): string[] {
  const missed: string[] = [];
  for (const r of rows) {
    if (r.merged !== TICKETS) missed.push(`${label}K = ${r.k}: ${r.merged} of ${TICKETS} merged`);
    if (r.duplicates !== 0) missed.push(`${label}K = ${r.k}: ${r.duplicates} duplicate Stages or pull requests`);
    if (r.stateFilesLeft !== 0) missed.push(`${label}K = ${r.k}: ${r.stateFilesLeft} State files left`);
    if (r.failures.length > 0) missed.push(`${label}K = ${r.k}: a Run failed`);
    // Hosts keep to their own stripes of the Frontier (ADR 0451): a lost take is a Host reaching for a ticket another holds.
    if (r.takesLost !== 0) missed.push(`${label}K = ${r.k}: ${r.takesLost} takes lost to another Host`);
    if (r.writesPerTicket > WRITE_BUDGET) missed.push(`${label}K = ${r.k}: ${r.writesPerTicket.toFixed(1)} GitHub writes per ticket, over ${WRITE_BUDGET}`);
  }
  return missed;
}

async function main(): Promise<void> {
  console.log(
    `bench:hosts — ${TICKETS} tickets, K Hosts × 2 Lanes (real \`ticket-runner run\` processes), one sandbox, lockScope host; agent ${AGENT_MS} ms per Stage; sandbox CI taking ${CI_MS} ms, polled every 1 s; Checks \`node -e 0\``,
  );
  console.log(machineSpeedLine());
  const rows: Row[] = [];
  for (const k of HOSTS) {
    const r = await measure(k);
    rows.push(r);
    printRow(r);
  }
  const missed = rowMisses(rows, "");
  const base = rows.find((r) => r.k === 1);
  const top = rows.find((r) => r.k === 4);
  if (base && top) {
    const ratio = perMinute(top) / perMinute(base);
    console.log(`K = 4 : K = 1 tickets/min = ${ratio.toFixed(2)}× (goal ≥ ${GOAL_RATIO}× with the agent taking 3 s per Stage)`);
    if (AGENT_MS >= 3000 && ratio < GOAL_RATIO) missed.push(`K = 4 : K = 1 is ${ratio.toFixed(2)}×, under ${GOAL_RATIO}×`);
  }
  if (AGENT_MS === 0) missed.push(...growthMisses(rows));
  if (INSTANT_HOSTS.length > 0) {
    console.log(`the same with the instant agent (no wait in any Stage; goal: tickets/min grows with every Host added, ADR 0511)`);
    const instant: Row[] = [];
    for (const k of INSTANT_HOSTS) {
      const r = await measure(k, 0);
      instant.push(r);
      printRow(r);
    }
    console.log(`instant agent, tickets/min: ${instant.map((r) => `K = ${r.k} ${perMinute(r).toFixed(1)}`).join(" · ")} (goal: each above the one before)`);
    missed.push(...rowMisses(instant, "instant agent: "), ...growthMisses(instant));
  }
  if (missed.length > 0) {
    console.log(`MISSED: ${missed.join("; ")}`);
    process.exitCode = 1;
  }
}

// bench:actions imports measure() for its baseline.
if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`bench:hosts failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exitCode = 1;
  });
}
