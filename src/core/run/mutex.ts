/** A first-come-first-served mutex: the Landing (rebase, PR, CI, merge) is one Lane at a time. */
export class FifoMutex {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** Runs `work` once every earlier caller's work has settled, in call order. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const before = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((resolve) => (done = resolve));
    this.waiting += 1;
    try {
      await before;
      this.waiting -= 1;
      return await work();
    } finally {
      done();
    }
  }

  /** Callers queued behind the holder. */
  get queued(): number {
    return this.waiting;
  }
}
