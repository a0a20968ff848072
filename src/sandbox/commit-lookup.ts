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
 * closes after IDLE_MS, at most MAX_BATCHES run at once, and stop() ends them all. A batch is
 * started from this process, not through the spawner (ADR 0391): it is one fork per repository
 * for the sandbox's life, and the spawner has no stdin to talk to it through. Its stdin is a pipe
 * from this process, so it exits by itself at end of file when this process dies.
 */
import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import os from "node:os";
import type { Readable, Writable } from "node:stream";
import { BatchHold, endBatch, makeRoom } from "./batch-lifetime";
import { gitEnv, revParseName } from "./git";

const ANSWER = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+)$/;

interface Question {
  name: string;
  resolve(answer: Found | null): void;
}

export interface Found {
  sha: string;
  type: string;
}

type BatchChild = ChildProcessByStdio<Writable, Readable, null>;

class Batch {
  private readonly child: BatchChild;
  private readonly pending: Question[] = [];
  private buffered = "";
  private answered = false;
  private readonly hold: BatchHold;
  private gone = false;
  /** Closed or killed on purpose (idle, too many, the repository made anew, stop): not a broken batch. */
  private ending = false;
  readonly exited: Promise<void>;

  constructor(
    readonly gitDir: string,
    /** Told once when the batch is gone; `sound`: it had answered, or was ended on purpose (not a repository it cannot read). */
    private readonly onGone: (batch: Batch, sound: boolean) => void,
  ) {
    this.child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch-check=%(objectname) %(objecttype)"], {
      cwd: os.tmpdir(),
      env: gitEnv(),
      stdio: ["pipe", "pipe", "ignore"],
    });
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
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.read(chunk));
    this.child.once("error", () => this.fail());
    this.child.once("exit", () => this.fail());
    this.hold.rest();
  }

  ask(name: string): Promise<Found | null> {
    return new Promise((resolve) => {
      this.pending.push({ name, resolve });
      this.hold.busy();
      this.child.stdin.write(`${name}\n`);
    });
  }

  get waiting(): number {
    return this.pending.length;
  }

  /** Still taking questions: not gone, not closing. */
  get open(): boolean {
    return !this.gone && !this.ending;
  }

  /** End of file: cat-file answers what it was asked, then exits. */
  close(): void {
    this.ending = true;
    if (!this.gone) this.child.stdin.end();
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }

  private read(chunk: string): void {
    if (this.gone) return;
    this.buffered += chunk;
    for (let nl = this.buffered.indexOf("\n"); nl >= 0; nl = this.buffered.indexOf("\n")) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const question = this.pending.shift();
      const m = ANSWER.exec(line);
      // Anything but an object or a "<name> missing"/"<name> ambiguous" line means the two sides
      // no longer agree on which answer is whose: give up on this batch.
      if (!question || (!m && !line.endsWith(" missing") && !line.endsWith(" ambiguous"))) {
        if (question) this.pending.unshift(question);
        this.kill();
        this.fail();
        return;
      }
      this.answered = true;
      question.resolve(m ? { sha: m[1]!, type: m[2]! } : null);
    }
    if (this.pending.length) this.hold.busy();
    else this.hold.rest();
  }

  /** The batch is gone: its questions are asked the old way, one process each. */
  private fail(): void {
    if (this.gone) return;
    this.gone = true;
    this.hold.clear();
    this.onGone(this, this.answered || this.ending);
    for (const q of this.pending.splice(0)) void askAlone(this.gitDir, q.name).then(q.resolve);
  }
}

/** rev-parse's answer for `name`, as an object of any type (the name says which with `^{type}`). */
async function askAlone(gitDir: string, name: string): Promise<Found | null> {
  const sha = await revParseName(gitDir, name);
  return sha ? { sha, type: "" } : null;
}

export class CommitLookups {
  private readonly batches = new Map<string, Batch>();
  /** Repositories whose batch died before its first answer: asked one process a question from then on. */
  private readonly broken = new Set<string>();
  private stopped = false;
  private count = 0;

  /** Batches started so far (the tests read it: one per repository, not one per question). */
  get started(): number {
    return this.count;
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
    return !this.stopped && !this.broken.has(gitDir);
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
    if (this.stopped || this.broken.has(gitDir) || /[\n\r\0]/.test(name)) return askAlone(gitDir, name);
    let batch = this.batches.get(gitDir);
    if (batch) this.batches.delete(gitDir);
    // One closing (idle) answers what it has and exits: a new one takes the question.
    if (!batch?.open) {
      batch = new Batch(gitDir, (b, sound) => this.gone(b, sound));
      this.count += 1;
      makeRoom(this.batches);
    }
    // Most recently asked last: the first is the one to close when there are too many.
    this.batches.set(gitDir, batch);
    return batch.ask(name);
  }

  private gone(batch: Batch, sound: boolean): void {
    if (this.batches.get(batch.gitDir) === batch) this.batches.delete(batch.gitDir);
    if (!sound && !this.stopped) this.broken.add(batch.gitDir);
  }

  /** Ends the repository's batch (it is about to be removed or made anew): the next question starts a fresh one. */
  async close(gitDir: string): Promise<void> {
    this.broken.delete(gitDir);
    const batch = this.batches.get(gitDir);
    if (!batch) return;
    this.batches.delete(gitDir);
    await endBatch(batch);
  }

  /** Ends every batch (the sandbox is reset): later questions start fresh ones. */
  async closeAll(): Promise<void> {
    this.broken.clear();
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
