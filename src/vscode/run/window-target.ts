import { homedir } from "node:os";
import { sep } from "node:path";
import * as vscode from "vscode";
import { defaultRunRoot } from "../../core/claims/run-root-path";
import { Refusal } from "../../core/errors";
import type { RepoRef } from "../../ports/tracker";
import { findTarget } from "../board/target";
import type { ExtensionServices } from "../services";

/** The Target this window works on, and how to reach it. */
export interface WindowTarget {
  /** The Target's clone (the first open folder whose remote is on the configured API). */
  readonly folder: string;
  readonly repo: RepoRef;
  /** `owner/name` */
  readonly name: string;
  readonly apiUrl: string;
  readonly token: string;
  readonly runRoot: string;
  /** process.env plus the token, for redaction: a VS Code sign-in token is not in process.env. */
  readonly redactEnv: Record<string, string | undefined>;
}

/** A worktree folder this extension (or a person) added is never taken for the Target itself. */
function isWorktreeFolder(path: string): boolean {
  return path.includes(`${sep}.worktrees${sep}`);
}

/**
 * Works out the Target for a person's command: signs in when needed (this is a person's action, so
 * it may prompt), then the first open clone whose remote is on the API. No GitHub request here.
 */
export async function resolveWindowTarget(services: ExtensionServices): Promise<WindowTarget> {
  const { connection } = services;
  const settings = connection.settings();
  const session = await connection.session("prompt");
  if (!session) {
    throw new Refusal(
      "bad-config",
      `Not signed in to ${settings.apiUrl}. Sign in to GitHub (Ticket Runner: Sign In), or start VS Code with TICKET_RUNNER_TOKEN set.`,
      { next: "Ticket Runner: Sign In" },
    );
  }
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  const target = await findTarget(
    folders.filter((f) => !isWorktreeFolder(f)),
    settings.apiUrl,
  );
  if (!target) {
    throw new Refusal(
      "not-a-target",
      `No open folder is a clone of a repository on ${settings.apiUrl}, so there is no Target to run on. Open the repository's clone (its origin remote on that server), then try again.`,
      { next: "git clone <url> && code <clone>" },
    );
  }
  const runRootSetting = vscode.workspace.getConfiguration("ticketRunner").get<string>("runRoot")?.trim();
  return {
    folder: target.folder,
    repo: target.repo,
    name: `${target.repo.owner}/${target.repo.repo}`,
    apiUrl: settings.apiUrl,
    token: session.token,
    runRoot: runRootSetting || defaultRunRoot(process.env, homedir()),
    redactEnv: { ...process.env, TICKET_RUNNER_TOKEN: session.token },
  };
}
