/**
 * What `release` kept (the worktree and the branch `start` made) and what a Run in that clone will
 * do with them (docs/adr/0121), in the words both front doors show: the CLI prints `text`; VS Code
 * shows it as an information message with a Copy Command button per entry of `commands`. The look
 * itself is git's (src/adapters/git/kept-branch.ts); this file only words it.
 */

/** What the git adapter found for the kept branch (its LeftBranchReport has this shape). */
export interface KeptBranchLook {
  left: { worktree: string | null };
  /** null: a Lane in this clone would start on it. */
  notReusable: { why: string } | null;
  /** The commands that delete the local branch and its worktree, for when its work is abandoned. */
  drop: string;
  /** The same for the remote's copy, when there is one. */
  dropRemote: string | null;
}

export interface KeptNote {
  text: string;
  /** The commands `text` names, in the order it names them (each one pastes into a shell). */
  commands: string[];
}

/** The note when the branch could be looked at (ADR 0121). */
export function keptWords(branch: string, look: KeptBranchLook): KeptNote {
  const what = look.left.worktree ? `the worktree ${look.left.worktree} and the branch ${branch}` : `the branch ${branch}`;
  if (!look.notReusable) {
    return {
      text: `Kept ${what} (release deletes nothing). They hold nothing beyond the base, so a Run in this clone starts on them. To remove them anyway: \`${look.drop}\`.`,
      commands: [look.drop],
    };
  }
  const remote = look.dropRemote ? `, and the remote's copy with \`${look.dropRemote}\`` : "";
  return {
    text:
      `Kept ${what} (release deletes nothing): ${look.notReusable.why}. A Run in this clone will not start on them: it hands the ticket to a person at setup. ` +
      `Finish or push that work yourself, or, if it is abandoned, remove them before the next Run: \`${look.drop}\`${remote}.`,
    commands: look.dropRemote ? [look.drop, look.dropRemote] : [look.drop],
  };
}

/** The note when the clone or git could not be asked: what was kept, no verdict. */
export function keptUnlooked(branch: string, worktree: string | null): KeptNote {
  return { text: `Kept ${worktree ? `the worktree ${worktree} and ` : ""}the branch ${branch} (release deletes nothing).`, commands: [] };
}

/** The note when the branch is gone from the clone already. */
export function keptBranchGone(branch: string, clone: string): KeptNote {
  return { text: `The branch ${branch} is no longer in ${clone}.`, commands: [] };
}
