/**
 * mulberry32: a small seeded pseudo-random generator, so a trial or a benchmark replays exactly from
 * its seed (a failing chaos trial, or every claim strategy meeting the same schedule). Not for secrets.
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
