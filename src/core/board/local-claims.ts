/**
 * Reads this Host's run directories for one Target, so a claim made here shows on the board
 * before GitHub has caught up. Layout (issue [claims]): `<run root>/<owner>__<repo>/issue-<n>/run.json`.
 * Read-only; a run.json that does not parse is reported and skipped, never fatal.
 * Uses node:fs directly: a port for "list a directory" would add nothing (COMMON.md).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { runJsonSchema, type RunJson } from "../schemas/run-json";
import type { LocalClaim } from "./types";

export interface LocalClaimsOptions {
  runRoot: string;
  owner: string;
  repo: string;
  /** Whether the process that wrote run.json still runs on this Host (Host.processStartTime). */
  isAlive(run: RunJson): Promise<boolean>;
  /** Told about every run.json that was skipped, and why. */
  onSkip?(path: string, reason: string): void;
}

export function targetRunDir(runRoot: string, owner: string, repo: string): string {
  return join(runRoot, `${owner}__${repo}`);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function hasTranscript(runDir: string): Promise<boolean> {
  const names = await readdir(runDir, { recursive: true }).catch(() => [] as string[]);
  return names.some((n) => n.endsWith(".transcript.jsonl"));
}

export async function readLocalClaims(opts: LocalClaimsOptions): Promise<LocalClaim[]> {
  const root = targetRunDir(opts.runRoot, opts.owner, opts.repo);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const claims: LocalClaim[] = [];
  for (const entry of entries) {
    const m = /^issue-(\d+)$/.exec(entry.name);
    if (!entry.isDirectory() || !m) continue;
    const runDir = join(root, entry.name);
    const file = join(runDir, "run.json");
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      continue; // a run directory whose claim was moved aside (released, superseded)
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      opts.onSkip?.(file, "not JSON (a run.json being written, or damaged)");
      continue;
    }
    const parsed = runJsonSchema.safeParse(raw);
    if (!parsed.success) {
      opts.onSkip?.(file, `not a run.json this version reads: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      continue;
    }
    const run = parsed.data;
    if (run.issue !== Number(m[1])) {
      opts.onSkip?.(file, `names issue #${run.issue}, not #${m[1]}`);
      continue;
    }
    if (run.repo.toLowerCase() !== `${opts.owner}/${opts.repo}`.toLowerCase()) {
      opts.onSkip?.(file, `names ${run.repo}, not ${opts.owner}/${opts.repo}`);
      continue;
    }
    const worktree = run.worktree && (await exists(run.worktree)) ? run.worktree : null;
    const alive = await opts.isAlive(run).catch(() => false);
    claims.push({ issue: run.issue, runDir, run, alive, worktree, hasTranscript: alive || (await hasTranscript(runDir)) });
  }
  return claims;
}
