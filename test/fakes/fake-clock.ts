/**
 * Virtual time for core unit tests. `sleep` never waits for real: when the process has nothing
 * else to do (a few turns of the event loop pass with no progress), time jumps to the earliest
 * pending sleep and resolves it. Pure promise chains always finish first, so a CI poll or a
 * heartbeat fires only when the code under test is genuinely waiting on the clock.
 */
import type { Clock } from "../../src/ports/clock";

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

const IDLE_TURNS = 8;

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];
  private ticking = false;
  /** Total virtual milliseconds slept through, for assertions on what waited. */
  advancedMs = 0;

  constructor(start = "2026-09-17T09:00:00.000Z") {
    this.t = Date.parse(start);
  }

  now(): Date {
    return new Date(this.t);
  }

  /** Moves time by hand (e.g. past a lease's expiry). */
  advance(ms: number): void {
    this.t += ms;
    this.advancedMs += ms;
  }

  pending(): number {
    return this.timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve };
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      };
      timer.resolve = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timers.push(timer);
      this.kick();
    });
  }

  private kick(): void {
    if (this.ticking) return;
    this.ticking = true;
    void this.tick();
  }

  private async tick(): Promise<void> {
    for (;;) {
      for (let i = 0; i < IDLE_TURNS; i++) await new Promise((r) => setImmediate(r));
      if (this.timers.length === 0) {
        this.ticking = false;
        return;
      }
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      if (next.at > this.t) {
        this.advancedMs += next.at - this.t;
        this.t = next.at;
      }
      next.resolve();
    }
  }
}
