/**
 * Handles queued items in time slices, yielding to the event loop between slices.
 *
 * Why: libuv reads a busy pipe up to 32 times per loop turn, so an agent printing as fast as it
 * can hands us thousands of events at once. Validating and rendering them all in one go stalled
 * the host's event loop for 300 ms at a time (bench/agent-stream.ts); in VS Code's extension host
 * that freezes every extension. Slices of a few ms, plus pausing the pipe above a high-water mark
 * (the agent then simply waits on its write), keep the loop responsive at any event rate.
 */
import { performance } from "node:perf_hooks";

export interface SlicedQueueOptions {
  /** Longest run of work before yielding. Default 8 ms. */
  budgetMs?: number;
  /** Queue length above which `onHigh` is called (pause the source). Default 2000. */
  highWater?: number;
  onHigh?: () => void;
  /** Called when the queue has drained after `onHigh` (resume the source). */
  onLow?: () => void;
}

export class SlicedQueue<T> {
  private items: T[] = [];
  private head = 0;
  private scheduled = false;
  private high = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly handle: (item: T) => void,
    private readonly opts: SlicedQueueOptions = {},
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
    if (!this.high && this.length > (this.opts.highWater ?? 2000)) {
      this.high = true;
      this.opts.onHigh?.();
    }
    this.schedule();
  }

  /** Resolves once every queued item has been handled. */
  idle(): Promise<void> {
    if (this.length === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    const budget = this.opts.budgetMs ?? 8;
    const start = performance.now();
    while (this.head < this.items.length) {
      const item = this.items[this.head]!;
      this.head += 1;
      this.handle(item);
      if (performance.now() - start >= budget) break;
    }
    if (this.head >= this.items.length) {
      this.items = [];
      this.head = 0;
    }
    if (this.length > 0) {
      setImmediate(() => this.drain());
      return;
    }
    this.scheduled = false;
    if (this.high) {
      this.high = false;
      this.opts.onLow?.();
    }
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
