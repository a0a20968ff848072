/**
 * The Workspace port: the git side of a Run. Implemented with real git by src/adapters/git-workspace*.
 * Rules (seed 002): nothing here deletes a pushed commit; pushes use --force-with-lease.
 */
import type { HostIdentity } from "./host";
import type { LockFile } from "../core/schemas/lock-file";
import type { StateFile } from "../core/schemas/state-file";

export type ResumeOutcome = "made" | "kept" | "fast-forwarded" | "parted" | "gone";

export interface Lane {
  ticket: number;
  branch: string;
  path: string;
}

export interface CheckResult {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  output: string;
  durationMs: number;
}

export interface StateRead {
  files: StateFile[];
  /** Files this version cannot use: left in place, reported. */
  unreadable: { path: string; reason: string; writtenBy: string | null }[];
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

export interface Workspace {
  /** The Target's local clone. */
  readonly root: string;

  fetchBase(base: string): Promise<void>;
  /** Fresh lane from origin/<base>; refuses when the branch already exists locally. */
  cutLane(ticket: number, branch: string, base: string): Promise<Lane>;
  /** Lane for a branch that may exist on the remote, this Host, or both. */
  resumeLane(ticket: number, branch: string, base: string): Promise<{ lane: Lane | null; outcome: ResumeOutcome; detail: string }>;
  abortRebaseInProgress(lane: Lane): Promise<boolean>;
  headSha(lane: Lane): Promise<string>;
  commitsAhead(lane: Lane, base: string): Promise<number>;
  isClean(lane: Lane): Promise<boolean>;
  /** Discards uncommitted changes (after verify). Committed work is untouched. */
  resetWorktree(lane: Lane): Promise<void>;
  push(lane: Lane): Promise<{ ok: boolean; detail: string }>;
  rebaseOnto(lane: Lane, base: string): Promise<"clean" | "conflict" | "up-to-date">;
  /** After a merge: worktree, local branch, remote branch (unless gone). */
  cleanupLane(lane: Lane, opts: { deleteRemote: boolean }): Promise<void>;
  runCheck(lane: Lane, command: string[], timeoutMs: number): Promise<CheckResult>;

  readStates(): Promise<StateRead>;
  readState(ticket: number): Promise<StateFile | null>;
  writeState(ticket: number, change: (current: StateFile | null) => StateFile | null): Promise<void>;
  keepTranscripts(ticket: number, runId: string, files: { name: string; path: string }[]): Promise<void>;

  readLock(): Promise<LockFile>;
  acquireLock(holder: LockHolder): Promise<{ ok: true } | { ok: false; standing: LockStanding; holder: LockHolder }>;
  releaseLock(runId: string): Promise<void>;
}
