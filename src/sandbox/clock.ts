/**
 * The sandbox's clock: real time plus an offset set through the admin API (`PUT /_sandbox/clock`),
 * so a test can let a minute pass in a moment (a write held for 60 s lands stamped 60 s later).
 * Every timestamp the sandbox writes (createdAt, updatedAt, closedAt, ...) reads it. One per
 * process: a new sandbox (App) starts it at real time again; the offset otherwise only moves forward.
 */
let offsetMs = 0;

export function sandboxNow(): number {
  return Date.now() + offsetMs;
}

export function clockOffset(): number {
  return offsetMs;
}

/** Moves the clock forward to `ms` ahead of real time (never back: GitHub's clock does not go back). */
export function setClockOffset(ms: number): void {
  offsetMs = Math.max(offsetMs, ms);
}

/** A reset sandbox starts at real time again. */
export function resetClock(): void {
  offsetMs = 0;
}
