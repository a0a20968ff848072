/**
 * Which object a name (a ref, a sha, `<name>^{commit}`) points at, answered by one long-lived
 * `git cat-file --batch-check` per repository instead of a `git rev-parse --verify` process per
 * question (ADR 0471): a request of the product's (a pull request read, a check run posted) asks
 * one or two, ~15 ms of CPU each as processes.
 *
 * cat-file resolves each line afresh, as rev-parse does once: git 2.39 reads a loose ref from its
 * file on every lookup, re-reads packed-refs when its stat changed, and rescans the packs when an
 * object is not found, so refs moved and objects pushed since the batch started are seen
 * (test/integration/sandbox/commit-lookup.test.ts). The same parser (get_oid_with_context) reads
 * the name, so the answer is rev-parse's; a name with a line break in it, which one line cannot
 * carry, is asked the old way.
 *
 * Bounded: a batch silent for ANSWER_MS with a question pending is killed, one that dies is
 * restarted by the next question, and every question it had is asked the old way; an idle batch
 * closes after IDLE_MS, at most MAX_BATCHES run at once, and stop() ends them all (the process
 * and the pool: cat-file-batch.ts).
 */
import { CatFileBatch, BatchPool } from "./cat-file-batch";
import { revParseName } from "./git";

const ANSWER = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+)$/;

interface Question {
  name: string;
  resolve(answer: Found | null): void;
}

export interface Found {
  sha: string;
  type: string;
}

class Batch extends CatFileBatch<Question> {
  private buffered = "";
  private said = false;

  constructor(gitDir: string, onGone: () => void) {
    super(gitDir, ["--batch-check=%(objectname) %(objecttype)"], true, onGone);
  }

  /** It has answered at least once: a batch that dies before that cannot read the repository. */
  get answered(): boolean {
    return this.said;
  }

  ask(name: string): Promise<Found | null> {
    return new Promise((resolve) => this.send({ name, resolve }, name));
  }

  protected read(chunk: string | Buffer): void {
    this.buffered += chunk.toString();
    for (let nl = this.buffered.indexOf("\n"); nl >= 0; nl = this.buffered.indexOf("\n")) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const question = this.pending.shift();
      const m = ANSWER.exec(line);
      // Anything but an object or a "<name> missing"/"<name> ambiguous" line means the two sides
      // no longer agree on which answer is whose: give up on this batch.
      if (!question || (!m && !line.endsWith(" missing") && !line.endsWith(" ambiguous"))) {
        if (question) this.pending.unshift(question);
        this.broken();
        return;
      }
      this.said = true;
      question.resolve(m ? { sha: m[1]!, type: m[2]! } : null);
    }
    this.settle();
  }

  /** The batch is gone: its questions are asked the old way, one process each. */
  protected abandon(q: Question): void {
    void askAlone(this.gitDir, q.name).then(q.resolve);
  }
}

/** rev-parse's answer for `name`, as an object of any type (the name says which with `^{type}`). */
async function askAlone(gitDir: string, name: string): Promise<Found | null> {
  const sha = await revParseName(gitDir, name);
  return sha ? { sha, type: "" } : null;
}

export class CommitLookups {
  /** Repositories whose batch died before its first answer: asked one process a question from then on. */
  private readonly broken = new Set<string>();
  private readonly pool = new BatchPool<Batch>((gitDir, onGone) => {
    const batch: Batch = new Batch(gitDir, () => {
      onGone();
      if (!batch.answered && !batch.endedOnPurpose && !this.pool.stopped) this.broken.add(gitDir);
    });
    return batch;
  });

  /** Batches started so far (the tests read it: one per repository, not one per question). */
  get started(): number {
    return this.pool.started;
  }

  /** The commit `name` names, as `git rev-parse --verify --quiet <name>^{commit}` answers; null when none. */
  async commit(gitDir: string, name: string): Promise<string | null> {
    const found = await this.lookup(gitDir, `${name}^{commit}`);
    return found && (found.type === "commit" || found.type === "") ? found.sha : null;
  }

  /** Whether `sha` is a tree in the repository. */
  async isTree(gitDir: string, sha: string): Promise<boolean> {
    const found = await this.lookup(gitDir, `${sha}^{tree}`);
    return found !== null && (found.type === "tree" || found.type === "") && found.sha === sha;
  }

  /** Whether this repository's questions go to its batch, not to one rev-parse each. */
  batched(gitDir: string): boolean {
    return !this.pool.stopped && !this.broken.has(gitDir);
  }

  /**
   * The object `name` names, not peeled, and its type; null: none, or the ref names an object the
   * repository does not have (cat-file's "missing"). Asked of rev-parse (the batch gone), the type
   * is "" and a missing object is not told apart.
   */
  object(gitDir: string, name: string): Promise<Found | null> {
    return this.lookup(gitDir, name);
  }

  private lookup(gitDir: string, name: string): Promise<Found | null> {
    // One line is one question: a name a line cannot carry goes to rev-parse, as before.
    if (!this.batched(gitDir) || /[\n\r\0]/.test(name)) return askAlone(gitDir, name);
    return this.pool.take(gitDir).ask(name);
  }

  /** Ends the repository's batch (it is about to be removed or made anew): the next question starts a fresh one. */
  async close(gitDir: string): Promise<void> {
    this.broken.delete(gitDir);
    await this.pool.close(gitDir);
  }

  /** Ends every batch (the sandbox is reset): later questions start fresh ones. */
  async closeAll(): Promise<void> {
    this.broken.clear();
    await this.pool.closeAll();
  }

  /** Ends every batch and starts none again: the sandbox is stopping. */
  async stop(): Promise<void> {
    await this.pool.stop();
  }
}
