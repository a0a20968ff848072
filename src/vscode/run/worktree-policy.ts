// No `vscode` import: what happens to a ticket's worktree in this window, unit-tested without VS Code.
// Why it depends on the window's shape: docs/adr/0023-worktree-folders.md; why the default is `off`
// (Open Worktree adds it on request): docs/adr/0265-worktree-folders-on-request.md.

export type WorktreeSetting = "add-and-remove" | "add-and-keep" | "new-window" | "off";

const WORKTREE_SETTINGS: readonly WorktreeSetting[] = ["add-and-remove", "add-and-keep", "new-window", "off"];

export const DEFAULT_WORKTREE_SETTING: WorktreeSetting = "off";

export interface WindowShape {
  /**
   * The window has a workspace file (saved `.code-workspace`, or an untitled multi-root workspace).
   * Only then can a folder be added without VS Code restarting the extension host, which would
   * kill the Run that asked for it.
   */
  readonly hasWorkspaceFile: boolean;
}

export type FolderPlan =
  /** Add it to this window; remove it after the merge when asked. */
  | { readonly kind: "add"; readonly removeAfterMerge: boolean }
  /** Open it in a window of its own (this window's folders never change). */
  | { readonly kind: "new-window" }
  /** This window cannot take folders safely: say so once per Run, with a button per worktree. */
  | { readonly kind: "offer" }
  | { readonly kind: "none" };

export function planWorktreeFolder(setting: WorktreeSetting, shape: WindowShape): FolderPlan {
  switch (setting) {
    case "off":
      return { kind: "none" };
    case "new-window":
      return { kind: "new-window" };
    case "add-and-remove":
    case "add-and-keep":
      return shape.hasWorkspaceFile ? { kind: "add", removeAfterMerge: setting === "add-and-remove" } : { kind: "offer" };
  }
}

export function asWorktreeSetting(value: unknown): WorktreeSetting {
  return WORKTREE_SETTINGS.includes(value as WorktreeSetting) ? (value as WorktreeSetting) : DEFAULT_WORKTREE_SETTING;
}

/** `#42 Add a formatPrice helper`: one line, at most 60 characters, no control characters. */
export function worktreeFolderName(ticket: number, title: string): string {
  const flat = title
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const name = flat ? `#${ticket} ${flat}` : `#${ticket}`;
  return name.length > 60 ? `${name.slice(0, 59)}…` : name;
}
