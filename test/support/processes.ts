/**
 * The process table, read from procfs (Linux), for tests that must prove they left nothing
 * running: a process is known by pid AND start time, so a recycled pid is never mistaken for it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseProcStat } from "../../src/adapters/node-host";

export interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  /** Clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid, names one process for good. */
  startTime: string;
  state: string;
  command: string;
}

function readRow(pid: number): ProcessRow | null {
  let stat: string;
  let cmdline: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return null; // gone meanwhile
  }
  const parsed = parseProcStat(stat);
  if (!parsed) return null;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  const command = cmdline.split("\0").filter(Boolean).join(" ") || `[${name}]`;
  return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), startTime: parsed.startTime, state: parsed.state, command };
}

/** Every process this user can see, zombies included (state "Z"). */
export function processTable(): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const row = readRow(Number(name));
    if (row) rows.push(row);
  }
  return rows;
}

/** "pid@startTime": one process, never a later one that reuses its pid. */
export function processKey(row: Pick<ProcessRow, "pid" | "startTime">): string {
  return `${row.pid}@${row.startTime}`;
}

/** Live (not zombie) descendants of `root`, whatever group or session they moved to. */
export function descendantsOf(root: number, table: ProcessRow[] = processTable()): ProcessRow[] {
  const children = new Map<number, ProcessRow[]>();
  for (const row of table) children.set(row.ppid, [...(children.get(row.ppid) ?? []), row]);
  const out: ProcessRow[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      if (child.state !== "Z") out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** Live processes whose environment (as they were started with it) holds `entry`, e.g. "GIT_PROJECT_ROOT=/tmp/x". */
export function processesWithEnv(entry: string, table: ProcessRow[] = processTable()): ProcessRow[] {
  return table.filter((row) => {
    if (row.state === "Z") return false;
    try {
      return readFileSync(`/proc/${row.pid}/environ`, "utf8").split("\0").includes(entry);
    } catch {
      return false;
    }
  });
}

export function describeProcesses(rows: readonly ProcessRow[]): string {
  return rows.map((r) => `pid ${r.pid} (parent ${r.ppid}, group ${r.pgid}): ${r.command}`).join("\n");
}
