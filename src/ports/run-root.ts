/**
 * The RunRoot port: this Host's run directories, `<run root>/<owner>__<repo>/issue-<n>/`, each
 * holding the local claim `run.json`. The fs adapter (src/adapters/fs-run-root.ts) creates run.json
 * with an exclusive create ('wx', O_CREAT|O_EXCL), so two sessions on one Host can never both hold
 * a ticket. Nothing here deletes: a run moved aside goes to `superseded/<timestamp>/` in its directory.
 */
import type { RunJson } from "../core/schemas/run-json";
import type { RepoRef } from "./tracker";

export type RunJsonRead =
  | { kind: "none" }
  | { kind: "ok"; run: RunJson }
  /** run.json exists but cannot be read as a run: never overwritten, reported. */
  | { kind: "invalid"; reason: string };

export interface LocalRun {
  ticket: number;
  dir: string;
  read: RunJsonRead;
}

export interface RunRoot {
  readonly root: string;
  /** The default run directory of a ticket. */
  dirFor(repo: RepoRef, ticket: number): string;
  read(dir: string): Promise<RunJsonRead>;
  /** Exclusive create. "exists" when another session holds the directory (its run.json is returned as read). */
  create(dir: string, run: RunJson): Promise<{ kind: "created" } | { kind: "exists"; current: RunJsonRead }>;
  /** Replaces run.json atomically (temp file + rename). Only the holder calls this. */
  update(dir: string, run: RunJson): Promise<void>;
  /**
   * Moves everything in `dir` except `superseded/` to `dir/superseded/<timestamp>/` (run.json last,
   * so the directory stays claimed until the move is done) and returns that path; null when there
   * was nothing to move. `note` is written next to the moved files as `moved-aside.json`.
   * With `ifSession`, nothing moves unless run.json belongs to that session: a displaced run
   * standing down must not carry off the run that displaced it.
   */
  moveAside(dir: string, note: { reason: string; at: string; by?: string }, opts?: { ifSession?: string }): Promise<string | null>;
  /** Every run directory of `repo` on this Host. */
  list(repo: RepoRef): Promise<LocalRun[]>;
}
