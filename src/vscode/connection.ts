import * as vscode from "vscode";
import type { Log } from "../ports/log";
import { Failure } from "../core/errors";
import { resolveConnectionSettings, type ConnectionSettings } from "./connection-settings";

export interface Session {
  readonly apiUrl: string;
  readonly token: string;
  /** The GitHub login when VS Code's sign-in provided it; environment tokens carry none until asked. */
  readonly account: string | undefined;
  readonly source: "vscode" | "TICKET_RUNNER_TOKEN" | "GITHUB_TOKEN";
}

const SCOPES = ["repo"];

/**
 * How the extension reaches GitHub (or the sandbox, or GitHub Enterprise), and as whom.
 * Asking silently never prompts and makes no request of ours; only a person's action prompts.
 * The token is handed to adapters and never logged.
 */
export class Connection implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when sign-in sessions or the API setting change; listeners re-ask for a session. */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [this.changed];

  constructor(
    private readonly log: Log,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.subscriptions.push(
      vscode.authentication.onDidChangeSessions((e) => {
        if (e.provider.id === "github" || e.provider.id === "github-enterprise") this.changed.fire();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("ticketRunner.apiUrl")) this.changed.fire();
      }),
    );
  }

  /** Throws a bad-config Refusal when the API URL is malformed. */
  settings(): ConnectionSettings {
    const setting = vscode.workspace.getConfiguration("ticketRunner").get<string>("apiUrl");
    return resolveConnectionSettings(setting, this.env);
  }

  /**
   * The session to act with. Silent: undefined when signed out. Prompt: a Failure when the
   * person declined or the provider is missing (the wrapper shows it with a button to the log).
   */
  async session(mode: "silent" | "prompt"): Promise<Session | undefined> {
    const settings = this.settings();
    if (settings.envToken) {
      return { apiUrl: settings.apiUrl, token: settings.envToken.value, account: undefined, source: settings.envToken.name };
    }
    try {
      const found = await vscode.authentication.getSession(settings.authProviderId, SCOPES, mode === "silent" ? { silent: true } : { createIfNone: true });
      if (!found) return undefined;
      return { apiUrl: settings.apiUrl, token: found.accessToken, account: found.account.label, source: "vscode" };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (mode === "silent") {
        // e.g. no GitHub authentication provider in this VS Code build (some code-server setups).
        this.log.info("no GitHub session available silently", { provider: settings.authProviderId, why: message });
        return undefined;
      }
      throw new Failure("github", `Signing in to GitHub did not complete: ${message}`, { cause: e });
    }
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
