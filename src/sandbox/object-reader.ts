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
import { createHash } from "node:crypto";
import { BatchPool, CatFileBatch } from "./cat-file-batch";

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

/** The id git gives an object of this type and contents. */
export function objectId(type: string, data: Buffer): string {
  return createHash("sha1").update(`${type} ${data.length}\0`).update(data).digest("hex");
}

class ObjectBatch extends CatFileBatch<Question> {
  /** What came since the last whole answer, joined only once `need` bytes are in (a large object comes in many chunks). */
  private chunks: Buffer[] = [];
  private length = 0;
  private need = 1;

  constructor(gitDir: string, onGone: () => void) {
    super(gitDir, ["--batch"], false, onGone);
  }

  ask(sha: string): Promise<ReadOutcome> {
    return new Promise((resolve) => this.send({ sha, resolve }, sha));
  }

  /** Answers in order: `<sha> <type> <size>\n<contents>\n`, or `<sha> missing\n`. */
  protected read(chunk: string | Buffer): void {
    if (typeof chunk === "string") return this.broken();
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
        this.broken();
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
    this.settle();
  }

  /** The batch is gone: its questions read as none (the caller leaves the request to git). */
  protected abandon(q: Question): void {
    q.resolve(null);
  }
}

export class ObjectReaders {
  private readonly pool = new BatchPool<ObjectBatch>((gitDir, onGone) => new ObjectBatch(gitDir, onGone));

  /** Batches started so far (the tests read it: one per repository, not one per object). */
  get started(): number {
    return this.pool.started;
  }

  /** The object `sha` (a full SHA-1) in the repository, its id checked; "missing": cat-file has none; null: larger than MAX_OBJECT, or not readable here. */
  async read(gitDir: string, sha: string): Promise<ReadOutcome> {
    if (this.pool.stopped || !SHA1.test(sha)) return null;
    const found = await this.pool.take(gitDir).ask(sha);
    return found === "missing" || (found && found.data.length <= MAX_OBJECT) ? found : null;
  }

  /** Ends the repository's batch (it is about to be removed or made anew). */
  close(gitDir: string): Promise<void> {
    return this.pool.close(gitDir);
  }

  /** Ends every batch (the sandbox is reset). */
  closeAll(): Promise<void> {
    return this.pool.closeAll();
  }

  /** Ends every batch and starts none again: the sandbox is stopping. */
  stop(): Promise<void> {
    return this.pool.stop();
  }
}
