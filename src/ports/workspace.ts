/**
 * The Workspace port: the git side of a Run. Implemented with real git by src/adapters/git/*.
 * Rules (ADR 0034): nothing here deletes a pushed commit; pushes use --force-with-lease.
 * Refusals (src/core/errors) are thrown with a `reason` to branch on; messages say the exact fix.
 */
import type { HostIdentity } from "./host";
import type { Refusal } from "../core/errors";
import type { LockFile } from "../core/schemas/lock-file";
import type { StateFile } from "../core/schemas/state-file";

/**
 * "parted" is never returned: resumeLane throws Refusal("branches-parted") instead, naming both
 * copies and the two ways to make them one (it stays in the union for code that names it).
 */
export type ResumeOutcome = "made" | "kept" | "fast-forwarded" | "parted" | "gone";

export interface Lane {
  ticket: number;
  branch: string;
  path: string;
}

export interface CheckResult {
  command: string;
  /** null when the check timed out, was stopped, or could not start. */
  exitCode: number | null;
  timedOut: boolean;
  /** stdout and stderr interleaved, secrets removed; only the last 1 MB when longer. */
  output: string;
  durationMs: number;
}

export interface StateRead {
  files: StateFile[];
  /** Files this version cannot use: left in place, reported. `writtenBy` is the version named in the file, if any. */
  unreadable: { path: string; reason: string; writtenBy: string | null; ticket: number }[];
}

export type LockStanding = "free" | "running" | "abandoned" | "elsewhere" | "mine";

export interface LockHolder {
  host: HostIdentity;
  pid: number;
  command: string;
  runId: string;
  startedAt: string;
  processStartTime: string | null;
}

export type LockAcquire =
  /**
   * `tookOverFrom`: abandoned holders on this Host (process gone or pid reused) whose lock was taken over.
   * `peers`: with lockScope "host", the Runs of other Hosts whose locks were held when this one was
   * taken, oldest first (absent: none). The Run spreads its first picks by them (ADR 0441).
   */
  | { ok: true; tookOverFrom?: LockHolder[]; peers?: LockHolder[] }
  /** `refusal` says who holds it and how it is freed (a person, for a lock held elsewhere). */
  | { ok: false; standing: LockStanding; holder: LockHolder; refusal?: Refusal };

export interface LaneCleanup {
  worktree: "removed" | "absent";
  localBranch: "deleted" | "kept" | "absent";
  remoteBranch: "deleted" | "gone" | "kept" | "skipped";
  /** The ticket's State record was removed with the branch, in the same push (asked with `removeState`). */
  stateRemoved?: boolean;
  detail: string;
}

export interface Workspace {
  /** The Target's local clone. */
  readonly root: string;

  /** Refuses (with the exact fix) a checkout a Run cannot use: not a repo, no remote, detached HEAD, dirty, old State files. */
  preflight(base?: string): Promise<void>;
  /** `agent/<n>-<slug>`: ASCII, safe for any title. */
  branchFor(ticket: number, title: string): string;
  /** `.worktrees/ticket-<n>` under the root. */
  lanePath(ticket: number): string;

  /** Forced refspec `+<base>:refs/remotes/<remote>/<base>`; a base only local is tolerated ("local-only"). */
  fetchBase(base: string): Promise<"remote" | "local-only" | void>;
  /** Fresh lane from the fetched base; Refusal("branch-in-way") when the branch exists here or on the remote. */
  cutLane(ticket: number, branch: string, base: string): Promise<Lane>;
  /** Lane for a branch that may exist on the remote, this Host, or both. Aborts a leftover rebase first. */
  resumeLane(ticket: number, branch: string, base: string): Promise<{ lane: Lane | null; outcome: ResumeOutcome; detail: string }>;
  abortRebaseInProgress(lane: Lane): Promise<boolean>;
  rebaseInProgress(lane: Lane): Promise<boolean>;
  headSha(lane: Lane): Promise<string>;
  commitsAhead(lane: Lane, base: string): Promise<number>;
  isClean(lane: Lane): Promise<boolean>;
  /** Discards uncommitted changes (after verify). Committed work is untouched. */
  resetWorktree(lane: Lane): Promise<void>;
  /**
   * `--force-with-lease=refs/heads/<b>:<the remote sha this Host last saw, or empty>`. With `record`,
   * the ticket's State record may go in the same push, `--atomic`, under its own lease (`recorded`);
   * when it does not, the caller writes it.
   */
  push(lane: Lane, opts?: { record?: StateFile }): Promise<PushResult>;
  /** The remote's tip of a branch (ls-remote), or null when the remote has none. */
  remoteBranchSha(branch: string): Promise<string | null>;
  /** On the fetched base. A conflict is left in place for a conflict Stage. */
  rebaseOnto(lane: Lane, base: string): Promise<"clean" | "conflict" | "up-to-date">;
  /**
   * After fetchBase: whether the base gained commits, since the lane's branch left it, that change a
   * file the lane's own commits change (a neighbour's merge the lane must be rebased onto and tested with again).
   */
  baseTouches(lane: Lane, base: string): Promise<boolean>;
  /** Unmerged paths during a stopped rebase. */
  conflictedFiles(lane: Lane): Promise<string[]>;
  /** After a conflict Stage: stage the resolution and continue; "conflict" if markers remain or a later commit conflicts. */
  continueRebase(lane: Lane): Promise<"clean" | "conflict">;
  /**
   * After a merge: worktree, local branch (only when its commits are in `base`, on the remote or
   * equal to `mergedHead`), and the remote branch unless it is gone or moved on. With `removeState`
   * (and `mergedHead`), that ticket's State record may go in the branch's deletion push, all or
   * none (`stateRemoved`); when it does not, the caller removes it.
   */
  cleanupLane(lane: Lane, opts: { deleteRemote: boolean; base?: string; mergedHead?: string; removeState?: number }): Promise<LaneCleanup | void>;
  /** No shell; own process group, killed at the timeout; output kept (tail, capped). */
  runCheck(lane: Lane, command: string[], timeoutMs: number, signal?: AbortSignal): Promise<CheckResult>;

  readStates(): Promise<StateRead>;
  /** Throws Failure("invalid-record") for a file this version cannot use. */
  readState(ticket: number): Promise<StateFile | null>;
  /**
   * Applies `change` to the State as the remote has it now; null removes it (and its transcripts).
   * Never rewrites a file this version cannot read (throws instead). Changes in one process take turns.
   */
  writeState(ticket: number, change: (current: StateFile | null) => StateFile | null): Promise<StateFile | null | void>;
  removeState(ticket: number): Promise<void>;
  /** The files of a ticket's logs in this Run a Hand-off keeps (Stage commands, transcripts, prompts, the Run's version.txt); none when no Stage wrote any. */
  keptLogFiles(ticket: number, runId: string): { name: string; path: string }[];
  /** Writes the product version into the Run's log directory (version.txt), kept with the transcripts. */
  writeRunVersion(runId: string, version: string): void;
  /** To ticket-<n>/<runId>/ on the State branch; `path` is that directory. */
  keepTranscripts(ticket: number, runId: string, files: { name: string; path: string }[]): Promise<{ path: string; kept: string[]; missing: string[] } | void>;
  /** Paths (relative to the State branch) of the transcripts kept for a ticket. */
  listTranscripts(ticket: number): Promise<string[]>;

  /** This Host's lock file: lock.json, or lock-<hostId>.json with lockScope "host". */
  readLock(): Promise<LockFile>;
  acquireLock(holder: LockHolder): Promise<LockAcquire>;
  releaseLock(runId: string): Promise<{ released: boolean; detail: string } | void>;
  /** The other Hosts' Runs that hold their locks now (lockScope "host"; ADR 0451): read again after the take, when every Run started together has one. */
  lockPeers(): Promise<LockHolder[]>;
  /** A person's release: writes {"held": false} whoever holds it. */
  unlock(note: string): Promise<{ previous: string }>;
}

/**
 * Why GitHub refused a push, when it said why (src/adapters/git/push-refusal.ts): the cause in
 * words, and what a person changes so the next push goes through.
 */
export interface PushRefusal {
  reason: "workflow-scope" | "push-protection" | "rule-violation";
  cause: string;
  fix: string;
}

export interface PushResult {
  ok: boolean;
  detail: string;
  refused?: PushRefusal;
  /** The State record asked for (`record`) went in the same push as the branch, all or none (ADR 0433). */
  recorded?: boolean;
}
