import * as vscode from "vscode";

/** The context keys package.json's `when` clauses read. One list, so a typo is a type error. */
export type ContextKey =
  | "ticketRunner.ready" // the first sign-in and remote checks are done (avoids a flash of the wrong welcome)
  | "ticketRunner.signedIn"
  | "ticketRunner.noRemote"
  | "ticketRunner.noReadyTickets"
  | "ticketRunner.running"
  | "ticketRunner.filterMine";

/** Sets context keys and remembers what it set (VS Code cannot be asked for a context key's value). */
export class ContextKeys {
  private readonly values = new Map<ContextKey, unknown>();

  async set(key: ContextKey, value: boolean | string | number): Promise<void> {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    await vscode.commands.executeCommand("setContext", key, value);
  }

  get(key: string): unknown {
    return this.values.get(key as ContextKey);
  }
}
