/**
 * Time a test drives: real time plus an offset that only grows. Each party (a racer, a Host) gets
 * its own Clock over it, so the test can tell which parties are asleep, and jump to the next moment
 * anything waits for instead of waiting for it: a write held 60 s costs nothing. Sleeps also end by
 * themselves when real time reaches them, so nothing hangs if the test stops driving.
 */
import type { Clock } from "../../src/ports/clock";

interface Sleeper {
  party: string;
  at: number;
  wake: () => void;
}

export class VirtualTime {
  private offsetMs = 0;
  private sleepers: Sleeper[] = [];

  /** Called with the new offset whenever it grows (e.g. to move the sandbox's clock with it). */
  constructor(private readonly onAdvance: (offsetMs: number) => Promise<void> = async () => undefined) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  get offset(): number {
    return this.offsetMs;
  }

  clockFor(party: string): Clock {
    return {
      now: () => new Date(this.now()),
      sleep: (ms, signal) =>
        new Promise<void>((resolve) => {
          const sleeper: Sleeper = { party, at: this.now() + Math.max(0, ms), wake: () => undefined };
          const timer = setTimeout(() => sleeper.wake(), Math.max(0, ms));
          sleeper.wake = () => {
            clearTimeout(timer);
            this.sleepers = this.sleepers.filter((s) => s !== sleeper);
            resolve();
          };
          signal?.addEventListener("abort", () => sleeper.wake(), { once: true });
          this.sleepers.push(sleeper);
        }),
    };
  }

  asleep(party: string): boolean {
    return this.sleepers.some((s) => s.party === party);
  }

  /** The earliest moment anyone sleeps until, or null. */
  nextWake(): number | null {
    return this.sleepers.length ? Math.min(...this.sleepers.map((s) => s.at)) : null;
  }

  /** Moves time forward to `at` (never back) and wakes everyone due by then. */
  async advanceTo(at: number): Promise<void> {
    const gap = at - this.now();
    if (gap > 0) {
      this.offsetMs += Math.ceil(gap);
      await this.onAdvance(this.offsetMs);
    }
    const now = this.now();
    for (const s of [...this.sleepers]) if (s.at <= now) s.wake();
  }
}
