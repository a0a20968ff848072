/**
 * CPU time of processes, for the benches (Linux /proc): this process's reaped children, and any
 * process with its own reaped children (the sandbox, whose git processes it waits for). In ms.
 */
import { readFileSync } from "node:fs";
import { gitProcessCounts } from "../src/adapters/git/git-process";
import { waitFor } from "../test/support/wait-for";

function statFields(pid: number | "self"): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** utime + stime of the reaped children of this process (git, the agent, the Checks, the git spawner). */
export function childrenCpuMs(): number {
  const f = statFields("self");
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** utime + stime of `pid` and of its reaped children. */
export function processTreeCpuMs(pid: number): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

/** The git spawner's CPU (and its gits') is counted once it has ended (letGoOfGitSpawner, or its quiet time). */
export async function spawnersEnded(): Promise<void> {
  await waitFor(() => gitProcessCounts().spawnersEnded === gitProcessCounts().spawners, { timeoutMs: 30_000, what: "the git spawner to end" });
}
