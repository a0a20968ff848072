/**
 * What this process and the processes it started cost in CPU, for the benches
 * (`TICKET_RUNNER_CPU_FILE`, written by `ticket-runner run` at its end): its own user + system time,
 * that of its reaped children (the spawner and everything it waited for; Linux, else null), and
 * the spawner's count per kind (spawner.ts). In ms.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { spawnerCounts } from "./spawner";
import type { SpawnerCounts } from "./spawner";

export interface CpuReport {
  ownMs: number;
  reapedMs: number | null;
  counts: SpawnerCounts;
  /** The start (ADR 0440): this process's own CPU and its git processes' when its first Lane started; null when none did. */
  firstLane: { ownMs: number; gitMs: number; gitProcesses: number } | null;
  /** The Run's events but its transcripts, in order (bench:hosts times the steps between Stages from them). */
  timeline: TimelineEntry[];
}

/** One Run event, as bench:hosts reads it: epoch ms, its kind, and the ticket, Lane and Stage it names. */
export interface TimelineEntry {
  ms: number;
  kind: string;
  ticket: number | null;
  lane: number | null;
  stage: string | null;
}

const timeline: TimelineEntry[] = [];

/** Notes one Run event for the report (`ticket-runner run` calls it on each, only when a report is asked for). */
export function noteEvent(event: { kind: string; at?: string; ticket?: number; lane?: number | null; stage?: string }): void {
  if (event.kind === "transcript" || event.at === undefined) return;
  timeline.push({ ms: Date.parse(event.at), kind: event.kind, ticket: event.ticket ?? null, lane: event.lane ?? null, stage: event.stage ?? null });
}

let firstLane: CpuReport["firstLane"] = null;

/** Notes the start's cost once, at the first Lane's start (`ticket-runner run` calls it on its first `lane-started`). */
export function markFirstLane(): void {
  if (firstLane) return;
  const own = process.cpuUsage();
  const git = spawnerCounts().byKind.git;
  firstLane = { ownMs: (own.user + own.system) / 1000, gitMs: git.cpuMs, gitProcesses: git.processes };
}

/**
 * utime + stime of this process's reaped children, from /proc (clock ticks of 10 ms); null where there is none.
 * The spawner's program (spawner-source.ts) carries its own copy: it runs as `node -e` text and
 * can import nothing of ours. Change both together.
 */
export function reapedChildrenCpuMs(): number | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return null;
  }
}

export function cpuReport(): CpuReport {
  const own = process.cpuUsage();
  return { ownMs: (own.user + own.system) / 1000, reapedMs: reapedChildrenCpuMs(), counts: spawnerCounts(), firstLane, timeline };
}

/** Writes the report where `TICKET_RUNNER_CPU_FILE` says, if it says; a failure to write is the bench's to notice. */
export function writeCpuReport(env: NodeJS.ProcessEnv): void {
  const file = env.TICKET_RUNNER_CPU_FILE;
  if (!file) return;
  try {
    writeFileSync(file, JSON.stringify(cpuReport()));
  } catch {
    // the bench reports a missing file
  }
}
