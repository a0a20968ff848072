/**
 * The Workspace port on real git: assembles the lane, State, transcript and lock parts over one
 * repository context. Front doors construct it; the core only sees the port.
 */
import { resolve } from "node:path";
import type { LockFile } from "../../core/schemas/lock-file";
import type { StateFile } from "../../core/schemas/state-file";
import type { Host } from "../../ports/host";
import type { Log } from "../../ports/log";
import type { CheckResult, Lane, LaneCleanup, LockAcquire, LockHolder, PushResult, StateRead, Workspace } from "../../ports/workspace";
import { baseTouches } from "./base-overlap";
import type { GitIdentity } from "./git-runner";
import { GitRunner } from "./git-runner";
import * as ops from "./lane-ops";
import { CloneGuard } from "./clone-guard";
import { preflight } from "./preflight";
import { RemoteGit } from "./remote-git";
import type { RepoContext } from "./repo-context";
import { abortRebase, rebaseInProgress, resumeLane } from "./resume-branch";
import { checkEnvironment, runCheck } from "./run-check";
import { configFilesGitReads, pinnedGlobalConfig } from "./config-files";
import type { Sandbox } from "../isolation/sandbox";
import type { LockScope } from "./run-lock";
import { RunLock } from "./run-lock";
import { branchFor } from "./slug";
import { STATE_LIST_PATTERNS, StateRefs } from "./state-refs";
import type { TranscriptFile } from "./transcripts";
import { transcriptFiles, writeVersionFile, type KeptFile } from "../run-logs";
import { cutLane, fetchBase, lanePath, leftBranchReport, type LeftBranchReport } from "./worktrees";

export interface GitWorkspaceOptions {
  /** The Target's main checkout. */
  root: string;
  host: Host;
  /** Default "origin". */
  remote?: string;
  lockScope?: LockScope;
  /** Identity of the commits the product makes itself (State snapshots, lock, rebases). */
  identity?: GitIdentity;
  /** Token for an HTTP remote (sandbox, GitHub); passed to git in env, never on argv, to `remoteUrl` only. */
  token?: string;
  /**
   * The Target's git URL as the front door computed it (gitUrlFor). Without it, the remote's URL
   * is read once from the clone's config, before any Stage of this process ran (ADR 0150).
   */
  remoteUrl?: string;
  /** Extra env for every git call. */
  env?: Record<string, string | undefined>;
  /** Names (or `PREFIX*`) of the Run's variables the Checks get besides the defaults (config `checkEnv`, ADR 0151). */
  checkEnvNames?: readonly string[];
  /** Variables set for the Checks on purpose (tests), over the allow-listed ones. */
  checkEnv?: Record<string, string | undefined>;
  /** The OS sandbox the Checks run in (ADR 0290), prepared by preflight(). */
  sandbox?: Sandbox;
  /** Retries of a State change after a lost race (default 3). */
  stateRetries?: number;
  /** The Run's log: a fetch or push left to git instead of smart HTTP from this process says so there (ADR 0486). */
  log?: Log;
}

export class GitWorkspace implements Workspace {
  readonly root: string;
  private readonly ctx: RepoContext;
  private readonly state: StateRefs;
  private readonly lock: RunLock;
  /** Puts the clone's config and hooks back after code from a worktree ran (ADR 0150). */
  readonly guard: CloneGuard;

  constructor(private readonly opts: GitWorkspaceOptions) {
    this.root = resolve(opts.root);
    // With the sandbox on, a global config file made later (in the home folder it may write) is never read.
    const env = opts.sandbox?.on ? { ...opts.env, ...pinnedGlobalConfig({ ...process.env, ...opts.env }) } : opts.env;
    const git = new GitRunner({ identity: opts.identity, token: opts.token, env });
    const remote = opts.remote ?? "origin";
    const net = new RemoteGit(git, { root: this.root, remote, url: opts.remoteUrl, token: opts.token, env });
    this.ctx = { git, root: this.root, remote, net, log: opts.log };
    this.guard = new CloneGuard(git, this.root);
    this.state = new StateRefs(this.ctx, { retries: opts.stateRetries });
    // The sweep reads the State records right after the take: their listing rides in the take's last ls-remote.
    this.lock = new RunLock(this.ctx, opts.host, opts.lockScope ?? "target", STATE_LIST_PATTERNS);
  }

  async preflight(base?: string): Promise<void> {
    const sandbox = this.opts.sandbox;
    // bwrap's proof runs beside the git checks; a refusal of theirs still comes first (ADR 0495).
    sandbox?.startProbe(this.root);
    // The config the sandbox holds read-only is read first: the same read names the filters and merge
    // drivers the checks' git calls switch off, so they ask git for none (ADR 0509). It writes nothing.
    const configFiles = sandbox?.on ? await configFilesGitReads(this.ctx, { ...process.env, ...this.opts.env }) : [];
    const { commonDir } = await preflight(this.ctx, base);
    await this.guard.remember();
    if (sandbox?.on) await sandbox.prepare({ root: this.root, commonDir, configFiles });
  }

  branchFor(ticket: number, title: string): string {
    return branchFor(ticket, title);
  }

  lanePath(ticket: number): string {
    return lanePath(this.ctx, ticket);
  }

  fetchBase(base: string): Promise<"remote" | "local-only"> {
    return fetchBase(this.ctx, base);
  }

  cutLane(ticket: number, branch: string, base: string): Promise<Lane> {
    return cutLane(this.ctx, ticket, branch, base);
  }

  /** What an old branch of a ticket holds, and whether a Lane here would start on it (no fetch; `release` says it). */
  leftBranch(ticket: number, branch: string, base: string): Promise<LeftBranchReport | null> {
    return leftBranchReport(this.ctx, ticket, branch, base);
  }

  resumeLane(ticket: number, branch: string, base: string): ReturnType<Workspace["resumeLane"]> {
    return resumeLane(this.ctx, ticket, branch, base);
  }

  abortRebaseInProgress(lane: Lane): Promise<boolean> {
    return abortRebase(this.ctx, lane.path);
  }

  rebaseInProgress(lane: Lane): Promise<boolean> {
    return rebaseInProgress(this.ctx, lane.path);
  }

  headSha(lane: Lane): Promise<string> {
    return ops.headSha(this.ctx, lane);
  }

  commitsAhead(lane: Lane, base: string): Promise<number> {
    return ops.commitsAhead(this.ctx, lane, base);
  }

  isClean(lane: Lane): Promise<boolean> {
    return ops.isClean(this.ctx, lane);
  }

  resetWorktree(lane: Lane): Promise<void> {
    return ops.resetWorktree(this.ctx, lane);
  }

  push(lane: Lane, opts: { record?: StateFile } = {}): Promise<PushResult> {
    if (!opts.record) return ops.push(this.ctx, lane);
    return this.state.along(lane.ticket, opts.record, (move) => ops.push(this.ctx, lane, move));
  }

  remoteBranchSha(branch: string): Promise<string | null> {
    return ops.remoteBranchSha(this.ctx, branch);
  }

  rebaseOnto(lane: Lane, base: string): Promise<"clean" | "conflict" | "up-to-date"> {
    return ops.rebaseOnto(this.ctx, lane, base);
  }

  baseTouches(lane: Lane, base: string): Promise<boolean> {
    return baseTouches(this.ctx, lane, base);
  }

  conflictedFiles(lane: Lane): Promise<string[]> {
    return ops.conflictedFiles(this.ctx, lane);
  }

  continueRebase(lane: Lane): Promise<"clean" | "conflict"> {
    return ops.continueRebase(this.ctx, lane);
  }

  async cleanupLane(lane: Lane, opts: { deleteRemote: boolean; base?: string; mergedHead?: string; removeState?: number }): Promise<LaneCleanup> {
    // The merged branch and the ticket's State record, deleted in one push (ADR 0431).
    const along =
      opts.deleteRemote && opts.removeState !== undefined && opts.mergedHead
        ? await this.state.removeAlong(opts.removeState, { ref: `refs/heads/${lane.branch}`, expected: opts.mergedHead })
        : null;
    const report = await ops.cleanupLane(this.ctx, lane, { ...opts, deletedAlready: along === "pushed" });
    return { ...report, stateRemoved: along === "pushed" };
  }

  async runCheck(lane: Lane, command: string[], timeoutMs: number, signal?: AbortSignal): Promise<CheckResult> {
    await this.guard.remember();
    const env = { ...checkEnvironment({ ...process.env, ...this.opts.env }, this.opts.checkEnvNames), ...this.opts.checkEnv };
    const result = await runCheck(lane, command, timeoutMs, { env, signal, redact: (t) => this.ctx.git.redact(t), sandbox: this.opts.sandbox });
    const notes = await this.guard.restore();
    if (notes.length === 0) return result;
    return { ...result, output: `${result.output}\n[ticket-runner: the check wrote into the clone's .git; put back: ${notes.join("; ")}]\n` };
  }

  readStates(): Promise<StateRead> {
    return this.state.readAll(this.lock.takeListed() ?? undefined);
  }

  readState(ticket: number): Promise<StateFile | null> {
    return this.state.readOne(ticket);
  }

  writeState(ticket: number, change: (current: StateFile | null) => StateFile | null): Promise<StateFile | null> {
    return this.state.change(ticket, change);
  }

  async removeState(ticket: number): Promise<void> {
    await this.state.change(ticket, () => null);
  }

  keptLogFiles(ticket: number, runId: string): KeptFile[] {
    return transcriptFiles(this.root, runId, ticket);
  }

  writeRunVersion(runId: string, version: string): void {
    writeVersionFile(this.root, runId, version);
  }

  keepTranscripts(ticket: number, runId: string, files: TranscriptFile[]): Promise<{ path: string; kept: string[]; missing: string[] }> {
    return this.state.keepTranscripts(ticket, runId, files);
  }

  listTranscripts(ticket: number): Promise<string[]> {
    return this.state.transcripts(ticket);
  }

  readLock(): Promise<LockFile> {
    return this.lock.read();
  }

  acquireLock(holder: LockHolder): Promise<LockAcquire> {
    return this.lock.acquire(holder);
  }

  lockPeers(): Promise<LockHolder[]> {
    return this.lock.peers();
  }

  async releaseLock(runId: string): Promise<{ released: boolean; detail: string }> {
    await this.guard.restore();
    return this.lock.release(runId);
  }

  unlock(note: string): Promise<{ previous: string }> {
    return this.lock.unlock(note);
  }
}
