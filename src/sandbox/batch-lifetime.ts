/**
 * What the sandbox's long-lived `git cat-file` batches share (commit-lookup.ts, ADR 0471;
 * object-reader.ts, ADR 0487): how long one may stay silent or idle, how many run at once, how one
 * is ended, and how its pipes stop holding the event loop.
 */
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";

/** A batch with a question pending and no answer for this long is stuck: killed. */
export const ANSWER_MS = 10_000;
/** A batch with no question for this long is closed (the next question starts another). */
export const IDLE_MS = 60_000;
/** At most this many batches at once: the one asked least recently is closed for a new one. */
export const MAX_BATCHES = 16;
/** How long a batch ended on purpose may take to exit at end of file before SIGKILL. */
const STOP_GRACE_MS = 2_000;

export interface EndableBatch {
  readonly exited: Promise<void>;
  readonly waiting: number;
  close(): void;
  kill(): void;
}

/** A pipe to a child is a socket, which can stop holding the event loop (ref/unref). */
export function refs(stream: Readable | Writable): { ref?: () => void; unref?: () => void } {
  return stream as unknown as { ref?: () => void; unref?: () => void };
}

/**
 * A batch's hold on this process: while a question is pending it holds the event loop and is
 * watched for silence (ANSWER_MS, then `stuck`); with none it lets go and, after IDLE_MS, `idle`.
 */
export class BatchHold {
  private stuckTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly child: ChildProcessByStdio<Writable, Readable, null>,
    private readonly stuck: () => void,
    private readonly idle: () => void,
  ) {}

  /** A question is pending. */
  busy(): void {
    this.clear();
    this.stuckTimer = setTimeout(this.stuck, ANSWER_MS);
    this.child.ref();
    refs(this.child.stdout).ref?.();
    refs(this.child.stdin).ref?.();
  }

  /** Nothing is pending. */
  rest(): void {
    this.clear();
    this.idleTimer = setTimeout(this.idle, IDLE_MS);
    this.idleTimer.unref();
    this.child.unref();
    refs(this.child.stdout).unref?.();
    refs(this.child.stdin).unref?.();
  }

  /** The batch is gone: no timer of its may fire. */
  clear(): void {
    clearTimeout(this.stuckTimer);
    clearTimeout(this.idleTimer);
  }
}

/** Closes the least recently asked idle batch when `batches` (most recently asked last) is full. */
export function makeRoom(batches: Map<string, EndableBatch>): void {
  if (batches.size < MAX_BATCHES) return;
  for (const [dir, b] of batches) {
    if (b.waiting > 0) continue;
    batches.delete(dir);
    b.close();
    return;
  }
}

/** End of file, then SIGKILL if the batch has not exited within STOP_GRACE_MS. */
export async function endBatch(batch: EndableBatch): Promise<void> {
  batch.close();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), STOP_GRACE_MS)));
  if ((await Promise.race([batch.exited, late])) === "late") batch.kill();
  clearTimeout(timer);
  await batch.exited;
}
