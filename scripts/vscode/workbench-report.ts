// Reads what TICKET_RUNNER_WORKBENCH_PROFILE_DIR (and TICKET_RUNNER_HOST_PROFILE_DIR, same folder)
// kept from one `npm run bench:vscode` and says where the slow round trips' time went:
//   npx tsx scripts/vscode/workbench-report.ts <dir>
// For each round trip over 50 ms during the burst: the workbench's long tasks that overlap it, the
// WebSocket frames the page got and sent meanwhile, and the busiest functions of the renderer's and
// the host's CPU profiles over it (minified workbench names resolved through VS Code's source map).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { codeServerBin } from "./code-server";
import { resolveMinified } from "./source-map-lookup";

interface Trip {
  at: number;
  ms: number;
}
interface Frame {
  at: number;
  dir: "in" | "out";
  bytes: number;
  socket: number;
}
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  wallStartMs?: number;
}

const SLOW_MS = 50;

function read<T>(file: string): T | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : null;
}

/** Self time per function in [from, to) (wall ms), top n. The profile's clock is anchored at wallStartMs. */
function busiest(p: Profile, from: number, to: number, n: number): { text: string; idle: number } {
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let t = p.startTime;
  let idle = 0;
  const wall0 = p.wallStartMs ?? 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    const at = wall0 + (t - p.startTime) / 1000;
    if (at < from || at >= to) continue;
    const f = byId.get(p.samples[i] ?? -1)?.callFrame;
    if (!f) continue;
    const ms = (p.timeDeltas[i + 1] ?? dt) / 1000;
    if (f.functionName === "(idle)") idle += ms;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + ms);
  }
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return { text: top.map(([k, ms]) => `      ${ms.toFixed(1).padStart(6)} ms  ${name(k)}`).join("\n"), idle };
}

function name(key: string): string {
  const m = /^(\S+) (\S*workbench\.js):(\d+):(\d+)$/.exec(key);
  if (!m) return key;
  const original = resolveMinified(workbenchMap(), Number(m[3]), Number(m[4]));
  return original ? `${m[1]} -> ${original}` : key;
}

let map: string | null = null;
function workbenchMap(): string {
  map ??= join(codeServerBin(), "..", "..", "code-server", "lib", "vscode", "out", "vs", "code", "browser", "workbench", "workbench.js.map");
  return map;
}

function framesIn(frames: Frame[], from: number, to: number): string {
  const inside = frames.filter((f) => f.at >= from && f.at < to);
  const sum = (dir: "in" | "out"): string => {
    const fs = inside.filter((f) => f.dir === dir);
    return `${fs.length} ${dir} (${(fs.reduce((a, f) => a + f.bytes, 0) / 1024).toFixed(1)} KB)`;
  };
  return `${sum("in")}, ${sum("out")}`;
}

function main(dir: string): void {
  const rt = read<{ marks: Record<string, number>; trips: Trip[] }>(join(dir, "burst.roundtrips.json"));
  const tasks = read<Trip[]>(join(dir, "longtasks.json")) ?? [];
  const frames = read<Frame[]>(join(dir, "frames.json")) ?? [];
  const wb = read<Profile>(join(dir, "workbench.cpuprofile"));
  const hostProfile = read<Profile>(join(dir, "burst.cpuprofile"));
  if (!rt) throw new Error(`${dir}/burst.roundtrips.json is missing: run the bench with TICKET_RUNNER_WORKBENCH_PROFILE_DIR=${dir}`);
  const from = rt.marks["burstFrom"] ?? 0;
  // The host's profile starts just before burstFrom when it carries no wall time of its own.
  const host = hostProfile ? { ...hostProfile, wallStartMs: hostProfile.wallStartMs ?? from } : null;
  const to = rt.marks["burstTo"] ?? Infinity;
  const secs = (to - from) / 1000;
  const burstTasks = tasks.filter((t) => t.at + t.ms >= from && t.at < to);
  console.log(`burst: ${secs.toFixed(1)} s, ${rt.trips.length} round trips in the test (idle ones included)`);
  console.log(
    `frames over the burst: ${framesIn(frames, from, to)}; per second: ${(frames.filter((f) => f.at >= from && f.at < to).length / secs).toFixed(0)}`,
  );
  console.log(
    `workbench long tasks (> 50 ms) over the burst: ${burstTasks.length}, ${burstTasks.reduce((a, t) => a + t.ms, 0).toFixed(0)} ms; longest ${Math.max(0, ...burstTasks.map((t) => t.ms)).toFixed(0)} ms`,
  );
  if (wb) console.log(`workbench CPU over the burst, top:\n${busiest(wb, from, to, 12).text}`);
  if (host) console.log(`host CPU over the burst, top:\n${busiest(host, from, to, 12).text}`);
  for (const trip of rt.trips.filter((t) => t.ms >= SLOW_MS && t.at >= from)) {
    const end = trip.at + trip.ms;
    const overlapping = tasks.filter((t) => t.at < end && t.at + t.ms > trip.at);
    console.log(
      `\nround trip at +${((trip.at - from) / 1000).toFixed(2)} s: ${trip.ms.toFixed(0)} ms; workbench long tasks overlapping: ${overlapping.map((t) => `${t.ms.toFixed(0)} ms at +${((t.at - from) / 1000).toFixed(2)} s`).join(", ") || "none"}; frames: ${framesIn(frames, trip.at, end)}`,
    );
    const span = overlapping.length
      ? [Math.min(trip.at, ...overlapping.map((t) => t.at)), Math.max(end, ...overlapping.map((t) => t.at + t.ms))]
      : [trip.at, end];
    if (wb) console.log(`    workbench CPU (${busiest(wb, span[0]!, span[1]!, 0).idle.toFixed(0)} ms idle):\n${busiest(wb, span[0]!, span[1]!, 10).text}`);
    if (host) console.log(`    host CPU:\n${busiest(host, trip.at, end, 6).text}`);
  }
}

main(process.argv[2] ?? ".");
