/**
 * How fast this machine is at the moment a bench starts, so figures from different days (and
 * different machines of the same kind) can be set side by side: a fixed loop of JavaScript, and
 * the wall time of starting one small process (`git --version`, ten in a row). Both are printed,
 * never judged: a bench's goals are ratios measured within one run.
 */
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";

export interface MachineSpeed {
  /** ms for 2·10⁷ additions in a loop (a few ms on a fast core). */
  loopMs: number;
  /** ms of wall time per `git --version`, spawned from this process. */
  processMs: number;
}

export function machineSpeed(): MachineSpeed {
  const started = performance.now();
  let sum = 0;
  for (let i = 0; i < 2e7; i++) sum += i;
  const loopMs = performance.now() - started;
  // The sum is used, so the loop cannot be left out.
  if (sum < 0) throw new Error("unreachable");
  const spawnedAt = performance.now();
  const runs = 10;
  for (let i = 0; i < runs; i++) spawnSync("git", ["--version"], { stdio: "ignore" });
  return { loopMs, processMs: (performance.now() - spawnedAt) / runs };
}

export function machineSpeedLine(s: MachineSpeed = machineSpeed()): string {
  return `machine speed now: a 2·10⁷-step JavaScript loop ${s.loopMs.toFixed(0)} ms, one \`git --version\` ${s.processMs.toFixed(1)} ms of wall time`;
}
