import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Set (with the launcher's workbench probe, scripts/vscode/workbench-probe.ts) to keep each round trip's wall time. */
const DIR = process.env["TICKET_RUNNER_WORKBENCH_PROFILE_DIR"];

export interface TimedRoundTrip {
  /** Date.now() when the command was sent. */
  readonly at: number;
  readonly ms: number;
}

/** Keeps a stretch's round trips as `<name>.roundtrips.json`, to line up with the workbench's long tasks and frames. */
export function keepRoundTrips(name: string, trips: readonly TimedRoundTrip[], marks: Record<string, number> = {}): void {
  if (!DIR) return;
  writeFileSync(join(DIR, `${name}.roundtrips.json`), JSON.stringify({ marks, trips }));
}
