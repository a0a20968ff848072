/**
 * What a Stage may run without asking (ADR-0140): its own git commands and the Target's Checks,
 * nothing broader. Generated from the config, handed to the agent as argv prefixes through the
 * AgentRunner port (Claude Code: settings `permissions.allow`). Edits inside the worktree are the
 * permission mode's (acceptEdits); pushing, network and other commands stay refused.
 */
import type { StageName } from "../../ports/agent-runner";
import type { Config } from "../schemas/config";

/** Read-only git every Stage may use to look around. */
const LOOK: string[][] = [
  ["git", "status"],
  ["git", "diff"],
  ["git", "log"],
  ["git", "show"],
];
/** Making commits on the Stage's own branch. Never push, checkout of branches, reset or rebase. */
const COMMIT: string[][] = [
  ["git", "add"],
  ["git", "rm"],
  ["git", "mv"],
  ["git", "commit"],
];
/** Finishing a stopped rebase, for the conflict Stage only. */
const REBASE: string[][] = [
  ["git", "rebase", "--continue"],
  ["git", "rebase", "--skip"],
  ["git", "checkout", "--theirs"],
  ["git", "checkout", "--ours"],
];

export function stagePermissions(stage: StageName, config: Pick<Config, "checks">): string[][] {
  const git = stage === "verify" ? LOOK : stage === "conflict" ? [...LOOK, ...COMMIT, ...REBASE] : [...LOOK, ...COMMIT];
  return [...git, ...config.checks.map((c) => [...c])];
}
