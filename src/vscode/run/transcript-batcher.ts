/**
 * Batches transcript lines into few large appends. A demo agent can emit 20,000 events in ten
 * seconds; appending each to a VS Code output channel would queue 20,000 IPC messages and stall
 * the extension host. Lines are joined and flushed at most every `intervalMs`, or at once when
 * `maxLines` are waiting. Nothing is dropped: the full transcript is also on disk.
 */
export interface LineBatcherOptions {
  /** Default 100 ms. */
  intervalMs?: number;
  /** Flush immediately once this many lines wait. Default 2000. */
  maxLines?: number;
}

export class LineBatcher {
  private lines: string[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;

  constructor(
    private readonly sink: (text: string) => void,
    private readonly opts: LineBatcherOptions = {},
  ) {}

  push(lines: readonly string[]): void {
    if (this.disposed || lines.length === 0) return;
    for (const l of lines) this.lines.push(l);
    if (this.lines.length >= (this.opts.maxLines ?? 2000)) {
      this.flush();
      return;
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, this.opts.intervalMs ?? 100);
    }
  }

  /** Appends everything waiting, as one string ending in a newline. */
  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.lines.length === 0) return;
    const text = this.lines.join("\n") + "\n";
    this.lines = [];
    this.sink(text);
  }

  dispose(): void {
    this.flush();
    this.disposed = true;
  }
}
