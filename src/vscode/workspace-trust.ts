import * as vscode from "vscode";
import { Refusal } from "../core/errors";

/** VS Code's own command for the Workspace Trust editor: the way out of Restricted Mode. */
export const MANAGE_TRUST_COMMAND = "workbench.trust.manage";

/**
 * Refuses an action in Restricted Mode (ADR 0230). The repository's ticket-runner.json chooses the
 * agent program and the Checks, and the claims code runs git in the folder: none of that may run
 * before the person has said they trust the folder's authors. The board stays, read-only.
 */
export function requireWorkspaceTrust(action: string, trusted: boolean = vscode.workspace.isTrusted): void {
  if (trusted) return;
  throw new Refusal(
    "untrusted-workspace",
    `${action} is not available in Restricted Mode: VS Code does not trust this folder, and its ticket-runner.json chooses the programs a Run starts (the agent and the Checks). Nothing was claimed or run. The board stays read-only. If you trust the folder's authors, run Workspaces: Manage Workspace Trust and choose Trust, then try again.`,
  );
}
