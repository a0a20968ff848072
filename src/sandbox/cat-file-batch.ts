/**
 * One long-lived `git cat-file` batch and the pool of them, one a repository: what the sandbox's
 * two readers share (commit-lookup.ts asks names with `--batch-check`, ADR 0471; object-reader.ts
 * reads contents with `--batch`, ADR 0487). Each reader parses its own answers; the process, its
 * hold on the event loop (batch-lifetime.ts), how it ends and how its pending questions are
 * handed back when it dies are written once here.
 *
 * A batch is started from this process, not through the spawner (ADR 0391): it is one fork per
 * repository for the sandbox's life, and the spawner has no stdin to talk to it through. Its stdin
 * is a pipe from this process, so it exits by itself at end of file when this process dies.
 */
import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import os from "node:os";
import type { Readable, Writable } from "node:stream";
import { BatchHold, endBatch, makeRoom } from "./batch-lifetime";
import { gitEnv } from "./git";

type BatchChild = ChildProcessByStdio<Writable, Readable, null>;

export abstract class CatFileBatch<Q> {
  private readonly child: BatchChild;
  /** Questions asked and not yet answered, oldest first: cat-file answers in order. */
  protected readonly pending: Q[] = [];
  private readonly hold: BatchHold;
  private gone = false;
  /** Closed or killed on purpose (idle, too many, the repository made anew, stop): not a broken batch. */
  private ending = false;
  readonly exited: Promise<void>;

  /** `args` follow `cat-file`; `text`: answers come as UTF-8 strings (split characters kept whole), else as bytes. */
  constructor(
    readonly gitDir: string,
    args: string[],
    text: boolean,
    /** Told once when the batch is gone, before its pending questions are handed to `abandon`. */
    private readonly onGone: () => void,
  ) {
    this.child = spawn("git", ["--git-dir", gitDir, "cat-file", ...args], { cwd: os.tmpdir(), env: gitEnv(), stdio: ["pipe", "pipe", "ignore"] });
    this.hold = new BatchHold(
      this.child,
      () => {
        this.kill();
        this.fail();
      },
      () => this.close(),
    );
    this.exited = new Promise((resolve) => {
      this.child.once("close", () => resolve());
      this.child.once("error", () => resolve());
    });
    this.child.stdin.on("error", () => this.fail());
    if (text) this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string | Buffer) => {
      if (!this.gone) this.read(chunk);
    });
    this.child.once("error", () => this.fail());
    this.child.once("exit", () => this.fail());
    this.hold.rest();
  }

  /** Parses what came; resolves answered questions in order, and calls `broken()` when the two sides no longer agree. */
  protected abstract read(chunk: string | Buffer): void;

  /** A question the batch died with: answered another way, or as none. */
  protected abstract abandon(question: Q): void;

  protected send(question: Q, line: string): void {
    this.pending.push(question);
    this.hold.busy();
    this.child.stdin.write(`${line}\n`);
  }

  /** After a read: held while questions are pending, let go when none are. */
  protected settle(): void {
    if (this.pending.length) this.hold.busy();
    else this.hold.rest();
  }

  /** An answer that is not the next question's: nothing after it can be trusted. */
  protected broken(): void {
    this.kill();
    this.fail();
  }

  get waiting(): number {
    return this.pending.length;
  }

  /** Still taking questions: not gone, not closing. */
  get open(): boolean {
    return !this.gone && !this.ending;
  }

  /** Ended on purpose rather than broken. */
  get endedOnPurpose(): boolean {
    return this.ending;
  }

  /** End of file: cat-file answers what it was asked, then exits. */
  close(): void {
    this.ending = true;
    if (!this.gone) this.child.stdin.end();
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }

  private fail(): void {
    if (this.gone) return;
    this.gone = true;
    this.hold.clear();
    this.onGone();
    for (const q of this.pending.splice(0)) this.abandon(q);
  }
}

/** One batch a repository, most recently asked last; the least recently asked idle one is closed when full. */
export class BatchPool<B extends CatFileBatch<unknown>> {
  private readonly batches = new Map<string, B>();
  private count = 0;
  private halted = false;

  constructor(private readonly make: (gitDir: string, onGone: () => void) => B) {}

  /** Batches started so far (the tests read it: one per repository, not one per question). */
  get started(): number {
    return this.count;
  }

  /** No batch is started again: the sandbox is stopping. */
  get stopped(): boolean {
    return this.halted;
  }

  /** The repository's open batch, a new one when it has none or its last is closing. */
  take(gitDir: string): B {
    let batch = this.batches.get(gitDir);
    if (batch) this.batches.delete(gitDir);
    if (!batch?.open) {
      const made: B = this.make(gitDir, () => {
        if (this.batches.get(gitDir) === made) this.batches.delete(gitDir);
      });
      batch = made;
      this.count += 1;
      makeRoom(this.batches);
    }
    this.batches.set(gitDir, batch);
    return batch;
  }

  /** Ends the repository's batch (it is about to be removed or made anew): the next question starts a fresh one. */
  async close(gitDir: string): Promise<void> {
    const batch = this.batches.get(gitDir);
    if (!batch) return;
    this.batches.delete(gitDir);
    await endBatch(batch);
  }

  /** Ends every batch (the sandbox is reset): later questions start fresh ones. */
  async closeAll(): Promise<void> {
    const all = [...this.batches.values()];
    this.batches.clear();
    await Promise.all(all.map(endBatch));
  }

  /** Ends every batch and starts none again: the sandbox is stopping. */
  async stop(): Promise<void> {
    this.halted = true;
    await this.closeAll();
  }
}
