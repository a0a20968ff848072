/**
 * An in-memory git for core unit tests: a FakeRemote (branches, the State branch, kept transcripts,
 * the Run lock) shared by any number of FakeWorkspace clones, each one Host's checkout. Commits
 * are opaque ids; a branch is the list of its commits from the root. Logs go to a real temp dir.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { transcriptFiles, writeVersionFile, type KeptFile } from "../../src/adapters/run-logs";
import { Refusal } from "../../src/core/errors";
import type { LockFile } from "../../src/core/schemas/lock-file";
import type { StateFile } from "../../src/core/schemas/state-file";
import type { CheckResult, Lane, LaneCleanup, LockHolder, PushResult, LockStanding, ResumeOutcome, StateRead, Workspace } from "../../src/ports/workspace";

let commitSeq = 0;
export function newCommit(label = "c"): string {
  commitSeq += 1;
  return `${label}${commitSeq}`;
}

export class FakeRemote {
  branches = new Map<string, string[]>();
  states = new Map<number, StateFile>();
  unreadable: StateRead["unreadable"] = [];
  transcripts = new Map<string, string[]>();
  lock: LockFile = { held: false };
  lockHistory: string[] = [];
  /** Other Hosts' held locks (lockScope "host"), as acquireLock reports them: its `peers` (ADR 0441). */
  peerLocks: LockHolder[] = [];
  /** Called once a Run's lock is taken (tests play what other Hosts do meanwhile). */
  onLockTaken: () => void = () => {};
  /** Called after every successful push of a branch (tests link it to pull requests and CI). */
  onPush: (branch: string, head: string) => void = () => {};
  /** Make State writes fail: return an Error to throw for this ticket/next value. */
  stateWriteFault: ((ticket: number, next: StateFile | null) => Error | null) | null = null;
  stateWrites: { ticket: number; value: StateFile | null }[] = [];

  constructor(base = "main") {
    this.branches.set(base, [newCommit("base")]);
  }

  /** Another Host or a person moves the base on. */
  advanceBase(base = "main"): string {
    const c = newCommit("base");
    this.branches.set(base, [...(this.branches.get(base) ?? []), c]);
    return c;
  }
}

interface FakeLane extends Lane {
  dirty: boolean;
  rebasing: { onto: string[]; own: string[]; resolved: boolean } | null;
}

export interface WorkspaceScript {
  /** What a rebase does for a ticket: default "clean" (or "up-to-date" when nothing moved). */
  rebase?: (ticket: number, call: number) => "clean" | "conflict";
  /** Whether the base's new commits touch the ticket's files; default: whenever the base moved. */
  touches?: (ticket: number) => boolean;
  /** A check's result; default exit 0. */
  check?: (lane: Lane, argv: string[], call: number) => Partial<CheckResult>;
  /** A refusal preflight() throws, if any. */
  preflight?: () => Error | null;
  /** Whether push sends the State record asked of it with the branch (ADR 0433); default yes. */
  recordWithPush?: boolean;
  /** Whether cleanupLane removes the State record asked of it with the branch (ADR 0431); default yes. */
  stateWithBranch?: boolean;
}

export class FakeWorkspace implements Workspace {
  readonly root: string;
  readonly local = new Map<string, string[]>();
  readonly lanes = new Map<number, FakeLane>();
  /** What this clone last saw of each remote branch (the lease of --force-with-lease). */
  private readonly seen = new Map<string, string[]>();
  readonly calls: string[] = [];
  private readonly rebaseCalls = new Map<number, number>();
  private checkCalls = 0;
  lockStanding: (holder: LockHolder, held: Extract<LockFile, { held: true }>) => LockStanding = (holder, held) =>
    held.runId === holder.runId ? "mine" : held.host.id === holder.host.id ? "running" : "elsewhere";

  constructor(
    readonly remote: FakeRemote,
    public script: WorkspaceScript = {},
    root?: string,
  ) {
    this.root = root ?? fs.mkdtempSync(path.join(os.tmpdir(), "tr-fake-ws-"));
  }

  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  private lane(l: Lane): FakeLane {
    const found = this.lanes.get(l.ticket);
    if (!found) throw new Error(`fake: no lane for #${l.ticket}`);
    return found;
  }

  /** The agent's hand: a commit on the lane's branch (and optionally leaves the tree dirty). */
  commit(l: Lane, label = "work"): string {
    const lane = this.lane(l);
    const c = newCommit(label);
    this.local.set(lane.branch, [...(this.local.get(lane.branch) ?? []), c]);
    lane.dirty = false;
    return c;
  }

  makeDirty(l: Lane): void {
    this.lane(l).dirty = true;
  }

  /** The conflict Stage's hand when it only resolves the files and leaves `git rebase --continue` to us. */
  resolveConflict(l: Lane): void {
    const lane = this.lane(l);
    if (lane.rebasing) lane.rebasing.resolved = true;
  }

  /** The conflict Stage's hand: finishes the stopped rebase. */
  finishRebase(l: Lane): void {
    const lane = this.lane(l);
    if (!lane.rebasing) return;
    this.local.set(lane.branch, [...lane.rebasing.onto, ...lane.rebasing.own.map((c) => `${c}'`)]);
    lane.rebasing = null;
  }

  isRebasing(ticket: number): boolean {
    return Boolean(this.lanes.get(ticket)?.rebasing);
  }

  async preflight(): Promise<void> {
    const refusal = this.script.preflight?.();
    if (refusal) throw refusal;
  }

  branchFor(ticket: number, title: string): string {
    const slug =
      title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 30)
        .replace(/-+$/, "") || "ticket";
    return `agent/${ticket}-${slug}`;
  }

  lanePath(ticket: number): string {
    return path.join(this.root, ".worktrees", `ticket-${ticket}`);
  }

  async fetchBase(base: string): Promise<void> {
    this.calls.push(`fetchBase ${base}`);
    const b = this.remote.branches.get(base);
    if (!b) throw new Error(`fake: no base ${base} on the remote`);
    this.local.set(`origin/${base}`, [...b]);
  }

  private addLane(ticket: number, branch: string): FakeLane {
    const lane: FakeLane = { ticket, branch, path: this.lanePath(ticket), dirty: false, rebasing: null };
    fs.mkdirSync(lane.path, { recursive: true });
    this.lanes.set(ticket, lane);
    return lane;
  }

  async cutLane(ticket: number, branch: string, base: string): Promise<Lane> {
    this.calls.push(`cutLane ${ticket} ${branch}`);
    if (this.local.has(branch)) {
      const where = this.lanes.get(ticket)?.path ?? path.join(this.root, "elsewhere");
      throw new Refusal(
        "branch-in-way",
        `A local branch \`${branch}\` already exists. If the work on it is abandoned, delete it with \`git branch -D ${branch}\`. Otherwise finish it by hand, then relabel the Ticket ready-for-agent.`,
        { path: where },
      );
    }
    this.local.set(branch, [...(this.local.get(`origin/${base}`) ?? this.remote.branches.get(base) ?? [])]);
    return this.addLane(ticket, branch);
  }

  async resumeLane(ticket: number, branch: string, base: string): Promise<{ lane: Lane | null; outcome: ResumeOutcome; detail: string }> {
    this.calls.push(`resumeLane ${ticket} ${branch}`);
    void base;
    const mine = this.local.get(branch);
    const theirs = this.remote.branches.get(branch);
    if (theirs) this.seen.set(branch, [...theirs]);
    const existing = this.lanes.get(ticket);
    if (existing?.rebasing) existing.rebasing = null;
    const lane = () => this.lanes.get(ticket) ?? this.addLane(ticket, branch);
    if (!mine && !theirs) return { lane: null, outcome: "gone", detail: "neither here nor on the remote" };
    if (!mine && theirs) {
      this.local.set(branch, [...theirs]);
      return { lane: lane(), outcome: "made", detail: "made from the remote" };
    }
    if (mine && !theirs) return { lane: lane(), outcome: "kept", detail: "only here" };
    const m = mine!;
    const t = theirs!;
    const prefix = (a: string[], b: string[]) => a.length <= b.length && a.every((c, i) => b[i] === c);
    if (prefix(t, m)) return { lane: lane(), outcome: "kept", detail: "this Host's copy is at or ahead of the remote" };
    if (prefix(m, t)) {
      this.local.set(branch, [...t]);
      return { lane: lane(), outcome: "fast-forwarded", detail: "fast-forwarded to the remote" };
    }
    throw new Refusal("branches-parted", `This Host's \`${branch}\` (at ${m[m.length - 1]}) and the remote's (at ${t[t.length - 1]}) have parted.`, {
      path: this.lanePath(ticket),
    });
  }

  async abortRebaseInProgress(l: Lane): Promise<boolean> {
    const lane = this.lane(l);
    if (!lane.rebasing) return false;
    lane.rebasing = null;
    this.calls.push(`abortRebase ${l.ticket}`);
    return true;
  }

  async rebaseInProgress(l: Lane): Promise<boolean> {
    return Boolean(this.lane(l).rebasing);
  }

  async conflictedFiles(l: Lane): Promise<string[]> {
    return this.lane(l).rebasing ? ["src/conflicted.ts"] : [];
  }

  async continueRebase(l: Lane): Promise<"clean" | "conflict"> {
    const lane = this.lane(l);
    if (!lane.rebasing) return "clean";
    if (!lane.rebasing.resolved) return "conflict";
    this.finishRebase(l);
    return "clean";
  }

  async remoteBranchSha(branch: string): Promise<string | null> {
    const b = this.remote.branches.get(branch);
    return b ? (b[b.length - 1] ?? null) : null;
  }

  async headSha(l: Lane): Promise<string> {
    const b = this.local.get(this.lane(l).branch) ?? [];
    return b[b.length - 1] ?? "";
  }

  async commitsAhead(l: Lane, base: string): Promise<number> {
    const b = this.local.get(this.lane(l).branch) ?? [];
    const onBase = new Set(this.remote.branches.get(base) ?? []);
    return b.filter((c) => !onBase.has(c)).length;
  }

  async isClean(l: Lane): Promise<boolean> {
    const lane = this.lane(l);
    return !lane.dirty && !lane.rebasing;
  }

  async resetWorktree(l: Lane): Promise<void> {
    this.calls.push(`reset ${l.ticket}`);
    this.lane(l).dirty = false;
  }

  async push(l: Lane, opts: { record?: StateFile } = {}): Promise<PushResult> {
    const lane = this.lane(l);
    const mine = this.local.get(lane.branch) ?? [];
    const theirs = this.remote.branches.get(lane.branch);
    const seen = this.seen.get(lane.branch);
    if (theirs && (!seen || seen.join() !== theirs.join())) {
      const contained = theirs.every((c) => mine.includes(c));
      if (!contained) return { ok: false, detail: "stale info: the remote moved since this clone saw it" };
    }
    this.remote.branches.set(lane.branch, [...mine]);
    this.seen.set(lane.branch, [...mine]);
    this.calls.push(`push ${lane.branch}`);
    this.remote.onPush(lane.branch, mine[mine.length - 1] ?? "");
    // As the git adapter: the record asked for goes in the same push (ADR 0433).
    if (!opts.record || this.script.recordWithPush === false) return { ok: true, detail: "pushed" };
    const record = opts.record;
    await this.writeState(l.ticket, () => record);
    this.calls.push(`State ${l.ticket} ${record.state} with ${lane.branch}`);
    return { ok: true, detail: "pushed", recorded: true };
  }

  async rebaseOnto(l: Lane, base: string): Promise<"clean" | "conflict" | "up-to-date"> {
    const lane = this.lane(l);
    const n = (this.rebaseCalls.get(l.ticket) ?? 0) + 1;
    this.rebaseCalls.set(l.ticket, n);
    const onto = this.local.get(`origin/${base}`) ?? [];
    const mine = this.local.get(lane.branch) ?? [];
    const own = mine.filter((c) => !onto.includes(c) && !(this.remote.branches.get(base) ?? []).includes(c));
    if (onto.every((c) => mine.includes(c))) return "up-to-date";
    if ((this.script.rebase?.(l.ticket, n) ?? "clean") === "conflict") {
      lane.rebasing = { onto, own, resolved: false };
      return "conflict";
    }
    this.local.set(lane.branch, [...onto, ...own.map((c) => `${c}'`)]);
    return "clean";
  }

  async baseTouches(l: Lane, base: string): Promise<boolean> {
    const onto = this.local.get(`origin/${base}`) ?? [];
    const mine = this.local.get(this.lane(l).branch) ?? [];
    if (onto.every((c) => mine.includes(c))) return false;
    return this.script.touches?.(l.ticket) ?? true;
  }

  async cleanupLane(l: Lane, opts: { deleteRemote: boolean; mergedHead?: string; removeState?: number }): Promise<LaneCleanup> {
    this.calls.push(`cleanup ${l.ticket}`);
    // As the git adapter: the record goes in the branch's deletion push, when the merged head is known.
    const along = opts.deleteRemote && opts.removeState !== undefined && opts.mergedHead !== undefined && this.script.stateWithBranch !== false;
    if (along) {
      await this.writeState(opts.removeState!, () => null);
      this.calls.push(`State ${opts.removeState} removed with ${l.branch}`);
    }
    this.local.delete(l.branch);
    this.lanes.delete(l.ticket);
    if (opts.deleteRemote) this.remote.branches.delete(l.branch);
    return { worktree: "removed", localBranch: "deleted", remoteBranch: opts.deleteRemote ? "deleted" : "skipped", stateRemoved: along, detail: "" };
  }

  async runCheck(l: Lane, command: string[], timeoutMs: number): Promise<CheckResult> {
    this.checkCalls += 1;
    const scripted = this.script.check?.(l, command, this.checkCalls) ?? {};
    void timeoutMs;
    return { command: command.join(" "), exitCode: 0, timedOut: false, output: "ok", durationMs: 5, ...scripted };
  }

  async readStates(): Promise<StateRead> {
    return { files: [...this.remote.states.values()].map((s) => ({ ...s })), unreadable: [...this.remote.unreadable] };
  }

  async readState(ticket: number): Promise<StateFile | null> {
    const s = this.remote.states.get(ticket);
    return s ? { ...s } : null;
  }

  async writeState(ticket: number, change: (current: StateFile | null) => StateFile | null): Promise<void> {
    const next = change(this.remote.states.get(ticket) ?? null);
    const fault = this.remote.stateWriteFault?.(ticket, next);
    if (fault) throw fault;
    this.remote.stateWrites.push({ ticket, value: next ? { ...next } : null });
    if (next) this.remote.states.set(ticket, { ...next });
    else {
      this.remote.states.delete(ticket);
      for (const k of [...this.remote.transcripts.keys()]) if (k.startsWith(`ticket-${ticket}/`)) this.remote.transcripts.delete(k);
    }
  }

  async removeState(ticket: number): Promise<void> {
    await this.writeState(ticket, () => null);
  }

  async listTranscripts(ticket: number): Promise<string[]> {
    return [...this.remote.transcripts.entries()].filter(([k]) => k.startsWith(`ticket-${ticket}/`)).flatMap(([k, names]) => names.map((n) => `${k}${n}`));
  }

  async unlock(note: string): Promise<{ previous: string }> {
    const previous = this.remote.lock.held ? this.remote.lock.runId : "free";
    this.remote.lock = { held: false };
    this.remote.lockHistory.push(`free by hand: ${note}`);
    return { previous };
  }

  keptLogFiles(ticket: number, runId: string): KeptFile[] {
    return transcriptFiles(this.root, runId, ticket);
  }

  writeRunVersion(runId: string, version: string): void {
    writeVersionFile(this.root, runId, version);
  }

  async keepTranscripts(ticket: number, runId: string, files: { name: string; path: string }[]): Promise<void> {
    this.remote.transcripts.set(
      `ticket-${ticket}/${runId}/`,
      files.map((f) => f.name),
    );
  }

  async readLock(): Promise<LockFile> {
    return this.remote.lock;
  }

  async acquireLock(holder: LockHolder): Promise<{ ok: true; peers?: LockHolder[] } | { ok: false; standing: LockStanding; holder: LockHolder }> {
    const lock = this.remote.lock;
    if (lock.held) {
      const standing = this.lockStanding(holder, lock);
      if (standing === "running" || standing === "elsewhere") return { ok: false, standing, holder: lock };
    }
    this.remote.lock = { held: true, ...holder };
    this.remote.lockHistory.push(`held by ${holder.runId}`);
    this.remote.onLockTaken();
    return this.remote.peerLocks.length > 0 ? { ok: true, peers: [...this.remote.peerLocks] } : { ok: true };
  }

  async lockPeers(): Promise<LockHolder[]> {
    return [...this.remote.peerLocks];
  }

  async releaseLock(runId: string): Promise<void> {
    if (this.remote.lock.held && this.remote.lock.runId === runId) {
      this.remote.lock = { held: false };
      this.remote.lockHistory.push(`free (${runId})`);
    }
  }
}
