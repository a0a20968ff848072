import * as vscode from "vscode";
import type { Log } from "../ports/log";
import { redactSecrets } from "../core/redact";

export interface NoticeAction {
  readonly title: string;
  run(): unknown;
}

export interface Notice {
  readonly level: "info" | "warning" | "error";
  readonly message: string;
  readonly actions: readonly string[];
  readonly at: number;
}

const KEEP = 50;

/**
 * Shows notifications with buttons. It never waits for the person to click: a command that awaited
 * its own toast would stay pending until the toast is dismissed. It also keeps the last few
 * notices so in-host tests can check what was said and which buttons were offered.
 */
export class Notifier {
  private readonly recentNotices: Notice[] = [];

  constructor(
    private readonly log: Log,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get recent(): readonly Notice[] {
    return this.recentNotices;
  }

  info(message: string, actions: readonly NoticeAction[] = []): void {
    this.show("info", message, actions);
  }

  warn(message: string, actions: readonly NoticeAction[] = []): void {
    this.show("warning", message, actions);
  }

  error(message: string, actions: readonly NoticeAction[] = []): void {
    this.show("error", message, actions);
  }

  private show(level: Notice["level"], rawMessage: string, actions: readonly NoticeAction[]): void {
    const message = redactSecrets(rawMessage, this.env);
    const titles = actions.map((a) => a.title);
    this.recentNotices.push({ level, message, actions: titles, at: Date.now() });
    if (this.recentNotices.length > KEEP) this.recentNotices.shift();
    const shown =
      level === "info"
        ? vscode.window.showInformationMessage(message, ...titles)
        : level === "warning"
          ? vscode.window.showWarningMessage(message, ...titles)
          : vscode.window.showErrorMessage(message, ...titles);
    void Promise.resolve(shown)
      .then(async (choice) => {
        const action = actions.find((a) => a.title === choice);
        if (action) await action.run();
      })
      .catch((e: unknown) => this.log.error("a notification action failed", { error: String(e) }));
  }
}
