/** Tickets a minute of one bench:hosts row. */
export function perMinute(r: { merged: number; wallMs: number }): number {
  return r.merged / (r.wallMs / 60_000);
}

/**
 * The instant agent's goal in bench:hosts (ADR 0511): each row's tickets/min above the row with
 * fewer Hosts. The words are "grows until merge-bound"; a merge there is one sandbox request
 * of tens of ms and Hosts merge side by side, so no merge bound is near at K = 4 and any fall is a miss.
 */
export function growthMisses(rows: { k: number; merged: number; wallMs: number }[]): string[] {
  const sorted = [...rows].sort((a, b) => a.k - b.k);
  const missed: string[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const [less, more] = [sorted[i - 1]!, sorted[i]!];
    if (perMinute(more) <= perMinute(less))
      missed.push(`instant agent: K = ${more.k} ${perMinute(more).toFixed(1)} tickets/min, not above K = ${less.k}'s ${perMinute(less).toFixed(1)}`);
  }
  return missed;
}
