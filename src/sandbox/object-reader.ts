/**
 * Objects' contents read by one long-lived `git cat-file --batch` per repository (ADR 0487), for
 * a fetch answered in this process (upload-pack-in-process.ts): it reads a few commits and trees a
 * fetch, where `git upload-pack` and its `pack-objects` cost two processes each time.
 *
 * cat-file rescans the packs when an object is not found, so objects pushed since the batch started
 * are read. Each object read is checked against its id (the SHA-1 of its header and contents), so
 * anything but the object asked for (a replace ref, a corrupt object) reads as none. Every failure
 * is null, never an answer: the caller then leaves the request to git. Bounded as commit-lookup.ts's
 * batches are: a batch silent for ANSWER_MS with a question pending is killed, an idle one closes
 * after IDLE_MS, at most MAX_BATCHES at once, and stop() ends them all.
 */
import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import { createHash } from "node:crypto";
import os from "node:os";
import type { Readable, Writable } from "node:stream";
import { BatchHold, endBatch, makeRoom } from "./batch-lifetime";
import { gitEnv } from "./git";

/** An object larger than this is not read here (a fetch that needs one is git's). */
export const MAX_OBJECT = 16 * 1024 * 1024;

const SHA1 = /^[0-9a-f]{40}$/;
const HEADER = /^([0-9a-f]{40}) (commit|tree|blob|tag) (\d+)$/;

export interface GitObject {
  type: "commit" | "tree" | "blob" | "tag";
  data: Buffer;
}

/** "missing": cat-file says the repository has no such object. */
export type ReadOutcome = GitObject | "missing" | null;

interface Question {
  sha: string;
  resolve(answer: ReadOutcome): void;
}

type BatchChild = ChildProcessByStdio<Writable, Readable, null>;

/** The id git gives an object of this type and contents. */
export function objectId(type: string, data: Buffer): string {
  return createHash("sha1").update(`${type} ${data.length}\0`).update(data).digest("hex");
}

class ObjectBatch {
  private readonly child: BatchChild;
  private readonly pending: Question[] = [];
  /** What came since the last whole answer, joined only once `need` bytes are in (a large object comes in many chunks). */
  private chunks: Buffer[] = [];
  private length = 0;
  private need = 1;
  private readonly hold: BatchHold;
  private gone = false;
  private ending = false;
  readonly exited: Promise<void>;

  constructor(
    readonly gitDir: string,
    private readonly onGone: (batch: ObjectBatch) => void,
  ) {
    this.child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch"], { cwd: os.tmpdir(), env: gitEnv(), stdio: ["pipe", "pipe", "ignore"] });
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
    this.child.stdout.on("data", (chunk: Buffer) => this.read(chunk));
    this.child.once("error", () => this.fail());
    this.child.once("exit", () => this.fail());
    this.hold.rest();
  }

  ask(sha: string): Promise<ReadOutcome> {
    return new Promise((resolve) => {
      this.pending.push({ sha, resolve });
      this.hold.busy();
      this.child.stdin.write(`${sha}\n`);
    });
  }

  get waiting(): number {
    return this.pending.length;
  }

  get open(): boolean {
    return !this.gone && !this.ending;
  }

  close(): void {
    this.ending = true;
    if (!this.gone) this.child.stdin.end();
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }

  /** Answers in order: `<sha> <type> <size>\n<contents>\n`, or `<sha> missing\n`. */
  private read(chunk: Buffer): void {
    if (this.gone) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.length < this.need) return;
    let buffered = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.need = 1;
    for (;;) {
      const nl = buffered.indexOf(10);
      if (nl < 0) {
        this.need = buffered.length + 1;
        break;
      }
      const line = buffered.toString("latin1", 0, nl);
      const question = this.pending[0];
      const m = HEADER.exec(line);
      if (!question || (!m && line !== `${question.sha} missing`) || (m && m[1] !== question.sha)) {
        this.kill();
        this.fail();
        return;
      }
      if (!m) {
        this.pending.shift();
        buffered = buffered.subarray(nl + 1);
        question.resolve("missing");
        continue;
      }
      const size = Number(m[3]);
      if (buffered.length < nl + 1 + size + 1) {
        this.need = nl + 1 + size + 1;
        break;
      }
      const data = Buffer.from(buffered.subarray(nl + 1, nl + 1 + size));
      buffered = buffered.subarray(nl + 1 + size + 1);
      this.pending.shift();
      const type = m[2] as GitObject["type"];
      question.resolve(objectId(type, data) === question.sha ? { type, data } : null);
    }
    this.chunks = buffered.length ? [buffered] : [];
    this.length = buffered.length;
    if (this.pending.length) this.hold.busy();
    else this.hold.rest();
  }

  /** The batch is gone: its questions read as none (the caller leaves the request to git). */
  private fail(): void {
    if (this.gone) return;
    this.gone = true;
    this.hold.clear();
    this.onGone(this);
    for (const q of this.pending.splice(0)) q.resolve(null);
  }
}

export class ObjectReaders {
  private readonly batches = new Map<string, ObjectBatch>();
  private stopped = false;
  private count = 0;

  /** Batches started so far (the tests read it: one per repository, not one per object). */
  get started(): number {
    return this.count;
  }

  /** The object `sha` (a full SHA-1) in the repository, its id checked; "missing": cat-file has none; null: larger than MAX_OBJECT, or not readable here. */
  async read(gitDir: string, sha: string): Promise<ReadOutcome> {
    if (this.stopped || !SHA1.test(sha)) return null;
    let batch = this.batches.get(gitDir);
    if (batch) this.batches.delete(gitDir);
    if (!batch?.open) {
      batch = new ObjectBatch(gitDir, (b) => {
        if (this.batches.get(b.gitDir) === b) this.batches.delete(b.gitDir);
      });
      this.count += 1;
      makeRoom(this.batches);
    }
    this.batches.set(gitDir, batch);
    const found = await batch.ask(sha);
    return found === "missing" || (found && found.data.length <= MAX_OBJECT) ? found : null;
  }

  /** Ends the repository's batch (it is about to be removed or made anew). */
  async close(gitDir: string): Promise<void> {
    const batch = this.batches.get(gitDir);
    if (!batch) return;
    this.batches.delete(gitDir);
    await endBatch(batch);
  }

  /** Ends every batch (the sandbox is reset). */
  async closeAll(): Promise<void> {
    const all = [...this.batches.values()];
    this.batches.clear();
    await Promise.all(all.map(endBatch));
  }

  /** Ends every batch and starts none again: the sandbox is stopping. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.closeAll();
  }
}
