/** What a Run's Stage lines say of where a ticket's time went (bench:hosts). */
/** formatDuration's text ("500 ms", "12 s", "1m 12s", "2h 05m") in seconds; null for anything else. */
export function durationSeconds(text: string): number | null {
  const ms = /^(\d+) ms$/.exec(text);
  if (ms) return Number(ms[1]) / 1000;
  const s = /^(\d+) s$/.exec(text);
  if (s) return Number(s[1]);
  const m = /^(\d+)m (\d+)s$/.exec(text);
  if (m) return Number(m[1]) * 60 + Number(m[2]);
  const h = /^(\d+)h (\d+)m$/.exec(text);
  return h ? Number(h[1]) * 3600 + Number(h[2]) * 60 : null;
}

/**
 * "[hh:mm:ss] #n stage: outcome · 12 s" lines (TICKET_RUNNER_TTY=0) summed per Stage. The duration
 * is the last "·" part of its own line: a line break ends it, whatever the next line says.
 */
export function stageSeconds(outputs: string[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const out of outputs) {
    for (const m of out.matchAll(/^\[[0-9:]+\] #\d+ ([a-z-]+): .* · ([^·\n]+)$/gm)) {
      const s = durationSeconds(m[2]!.trim());
      if (s !== null) sums.set(m[1]!, (sums.get(m[1]!) ?? 0) + s);
    }
  }
  return sums;
}
