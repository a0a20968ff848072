/** One worktree of the Target's clone, as `git worktree list --porcelain` or its records' files tell it. */
export interface WorktreeEntry {
  path: string;
  head: string | null;
  /** Short name (e.g. agent/3-x), or null when detached. */
  branch: string | null;
  prunable: boolean;
}
