import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

const RESOLUTION_MS = 10;

/** Set to a folder to also keep a CPU profile of the host over each watched stretch (docs/vscode.md). */
const PROFILE_DIR = process.env["TICKET_RUNNER_HOST_PROFILE_DIR"];

export interface HostStalls {
  readonly maxMs: number;
  readonly p99Ms: number;
}

/**
 * The extension host's own stalls over a stretch of a test: Node's event-loop delay histogram, a
 * timer every 10 ms, so the longest interval past 10 ms is the longest the host could not run
 * anything (a command, a message from the workbench). Runs in the host, so it sees only the host.
 */
export function watchHostStalls(name: string): { stop(): Promise<HostStalls> } {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  const profile = PROFILE_DIR ? startProfile() : null;
  return {
    stop: async () => {
      h.disable();
      if (profile && PROFILE_DIR) writeFileSync(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(await profile.stop()));
      const past = (ns: number): number => Math.max(0, ns / 1e6 - RESOLUTION_MS);
      return { maxMs: past(h.max), p99Ms: past(h.percentile(99)) };
    },
  };
}

function startProfile(): { stop(): Promise<unknown> } {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object): Promise<unknown> =>
    new Promise((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  const started = post("Profiler.enable")
    .then(() => post("Profiler.setSamplingInterval", { interval: 500 }))
    .then(() => post("Profiler.start"))
    .then(() => Date.now());
  return {
    stop: async () => {
      const wallStartMs = await started;
      const { profile } = (await post("Profiler.stop")) as { profile: object };
      session.disconnect();
      // The wall time of the profile's start, to line it up with the workbench's (scripts/vscode/workbench-report.ts).
      return { ...profile, wallStartMs };
    },
  };
}
