/**
 * CPU of every process a bench starts, counted by a cgroup (Linux cgroup v1 cpuacct, where this
 * process may make one; else null). It is the one count that sees the processes inside a bwrap
 * sandbox (ADR 0290): bwrap's outer process exits without reaping the sandbox's init, which the
 * Host's own init then reaps, so no counter of ours (a parent's reaped children) ever holds them.
 * This process joins the group, so everything it starts from then on is in it, whoever reaps it.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = "/sys/fs/cgroup/cpuacct";

export class CpuGroup {
  private constructor(private readonly dir: string) {}

  /** A group with this process in it, or null where none can be made (no cgroup v1 cpuacct, not allowed). */
  static join(): CpuGroup | null {
    const dir = join(ROOT, `tr-bench-${process.pid}`);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "cgroup.procs"), String(process.pid));
      const group = new CpuGroup(dir);
      process.once("exit", () => group.leave());
      return group;
    } catch {
      try {
        rmdirSync(dir);
      } catch {
        // never made
      }
      return null;
    }
  }

  /** CPU (user + system) of every process that was ever in the group, in ms. */
  usageMs(): number {
    return Number(readFileSync(join(this.dir, "cpuacct.usage"), "utf8").trim()) / 1e6;
  }

  /** Moves what is left in the group back to the root, and removes the group. */
  leave(): void {
    try {
      for (const pid of readFileSync(join(this.dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean)) writeFileSync(join(ROOT, "cgroup.procs"), pid);
      rmdirSync(this.dir);
    } catch {
      // a process left in it keeps the group; it is harmless and named after this pid
    }
  }
}
