/**
 * Durations and times of day as a person reads them, the same in the CLI, the extension and the
 * comments a Run writes (docs/agents.md shows them): "850 ms", "48 s", "1m 12s", "2h 05m"; the
 * time of day in UTC, like the run id: "14:03:27", or "14:03" where seconds are noise.
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** The UTC time of day of an ISO timestamp (as the Run's events and clocks write them); null for none. */
export function clock(iso: string, unit?: "seconds" | "minutes"): string;
export function clock(iso: string | null, unit?: "seconds" | "minutes"): string | null;
export function clock(iso: string | null, unit: "seconds" | "minutes" = "seconds"): string | null {
  if (!iso) return null;
  return iso.slice(11, unit === "seconds" ? 19 : 16);
}
