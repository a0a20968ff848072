/** Where the lanes' worktrees live, inside the clone (listed in .git/info/exclude). */
export const WORKTREES_DIR = ".worktrees";
