/**
 * Batches transcript lines into few large appends (ADR 0360). A demo agent can emit 20,000 events
 * in ten seconds; appending each to a VS Code output channel would cost 20,000 writes, and, while
 * the channel is shown, as many updates of the workbench's Output view, each of which (VS Code
 * 1.100, remote or web) reads the channel's whole file again over the connection.
 * Cadence: a quiet channel's first line is appended `firstDelayMs` after it arrives (live); two
 * appends are at least `intervalMs` apart (a burst costs at most 1000 / intervalMs appends a
 * second, however many lines), and further apart as the channel grows (`charsPerMs`: what a shown
 * channel makes the workbench re-read stays near that rate), never more than `maxIntervalMs`.
 * `maxChars` bounds what waits in memory. Nothing is dropped or reordered: lines leave in the
 * order they came, and the full transcript is also on disk.
 */
export interface LineBatcherOptions {
  /** Delay of the first append after a quiet spell. Default 50 ms. */
  firstDelayMs?: number;
  /** Shortest time between two timed appends. Default 250 ms (at most 4 appends a second). */
  intervalMs?: number;
  /** The gap grows to (characters appended so far) / charsPerMs. Default 256 (about 256 KB a second). */
  charsPerMs?: number;
  /** Longest gap between two timed appends, however big the channel. Default 2000 ms. */
  maxIntervalMs?: number;
  /** Append at once when this many characters wait (a memory bound, not a cadence). Default 1 MiB. */
  maxChars?: number;
  /** For tests: the clock and the timers. Default Date.now and the global timers. */
  clock?: BatcherClock;
}

export interface BatcherClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: BatcherClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class LineBatcher {
  private lines: string[] = [];
  private chars = 0;
  private appended = 0;
  private timer: unknown = null;
  private lastAppendAt = Number.NEGATIVE_INFINITY;
  private disposed = false;
  private readonly clock: BatcherClock;

  constructor(
    /** Gets the waiting lines joined, each ending in a newline, and how many they are. */
    private readonly sink: (text: string, lines: number) => void,
    private readonly opts: LineBatcherOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
  }

  push(lines: readonly string[]): void {
    if (this.disposed || lines.length === 0) return;
    for (const l of lines) {
      this.lines.push(l);
      this.chars += l.length + 1;
    }
    if (this.chars >= (this.opts.maxChars ?? 1024 * 1024)) {
      this.flush();
      return;
    }
    if (this.timer !== null) return;
    const now = this.clock.now();
    const sinceLast = now - this.lastAppendAt;
    const delay = Math.max(this.opts.firstDelayMs ?? 50, this.gapMs() - sinceLast);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.flush();
    }, delay);
  }

  /** The shortest gap after the last append: longer as the channel grows, within its bounds. */
  private gapMs(): number {
    const floor = this.opts.intervalMs ?? 250;
    const grown = this.appended / (this.opts.charsPerMs ?? 256);
    return Math.min(Math.max(floor, this.opts.maxIntervalMs ?? 2000), Math.max(floor, grown));
  }

  /** Appends everything waiting, as one string ending in a newline. */
  flush(): void {
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.lines.length === 0) return;
    const text = this.lines.join("\n") + "\n";
    const count = this.lines.length;
    this.lines = [];
    this.chars = 0;
    this.appended += text.length;
    this.lastAppendAt = this.clock.now();
    this.sink(text, count);
  }

  dispose(): void {
    this.flush();
    this.disposed = true;
  }
}
