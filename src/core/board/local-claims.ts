/**
 * This Host's run directories for one Target, so a claim made here shows on the board before
 * GitHub has caught up. The claims code's RunRoot lists and reads them; the board adds whether
 * the run is alive, whether its worktree exists, and whether it left transcripts.
 * Read-only. A run.json that does not read is reported and skipped, never fatal. The files are
 * looked at through `files` (src/adapters/fs-run-root.ts: fsLocalFiles), not from here.
 */
import type { RunRoot } from "../../ports/run-root";
import type { RepoRef } from "../../ports/tracker";
import type { RunJson } from "../schemas/run-json";
import type { LocalClaim } from "./types";

/** What the board asks of this Host's disk about a run. */
export interface LocalFiles {
  exists(path: string): Promise<boolean>;
  /** Whether a run directory holds a Stage's transcript (`*.transcript.jsonl`, at any depth). */
  hasTranscript(runDir: string): Promise<boolean>;
}

export interface LocalClaimsOptions {
  runRoot: Pick<RunRoot, "list">;
  files: LocalFiles;
  repo: RepoRef;
  /** Whether the process that wrote run.json still runs on this Host (Host.processStartTime). */
  isAlive(run: RunJson): Promise<boolean>;
  /** Told about every run.json that was skipped, and why. */
  onSkip?(dir: string, reason: string): void;
}

export async function readLocalClaims(opts: LocalClaimsOptions): Promise<LocalClaim[]> {
  const target = `${opts.repo.owner}/${opts.repo.repo}`;
  const runs = await opts.runRoot.list(opts.repo);
  const claims: LocalClaim[] = [];
  for (const { ticket, dir, read } of runs) {
    if (read.kind === "none") continue; // moved aside: released or superseded
    if (read.kind === "invalid") {
      opts.onSkip?.(dir, read.reason);
      continue;
    }
    const run = read.run;
    if (run.issue !== ticket) {
      opts.onSkip?.(dir, `run.json names issue #${run.issue}, not #${ticket}`);
      continue;
    }
    if (run.repo.toLowerCase() !== target.toLowerCase()) {
      opts.onSkip?.(dir, `run.json names ${run.repo}, not ${target}`);
      continue;
    }
    const worktree = run.worktree && (await opts.files.exists(run.worktree)) ? run.worktree : null;
    const alive = await opts.isAlive(run).catch(() => false);
    claims.push({ issue: ticket, runDir: dir, run, alive, worktree, hasTranscript: alive || (await opts.files.hasTranscript(dir)) });
  }
  return claims;
}
