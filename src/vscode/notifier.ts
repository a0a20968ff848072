import * as vscode from "vscode";
import type { Log } from "../ports/log";
import { inertLinkedText } from "../core/inert-text";
import { redactSecrets } from "../core/redact";

/**
 * What every notification and dialog shows: tokens masked, and no live `[label](command:…)` link.
 * Messages carry text from GitHub (lease hosts, error messages) and the agent (hand-off lines);
 * this is the one door to VS Code's message API, so nothing reaches it any other way (ADR 0231).
 */
function shown(text: string, env: NodeJS.ProcessEnv): string {
  return inertLinkedText(redactSecrets(text, env));
}

export interface NoticeAction {
  readonly title: string;
  run(): unknown;
}

export interface Notice {
  readonly level: "info" | "warning" | "error";
  readonly message: string;
  readonly actions: readonly string[];
  readonly at: number;
  /** A modal question (a confirmation), not a toast. */
  readonly modal?: boolean;
  readonly detail?: string;
}

/**
 * The one seam to VS Code's message API. Tests replace it (Notifier.setMessageApi) to answer a
 * question or press a button, instead of patching `vscode.window` globally.
 */
export interface MessageApi {
  show(level: Notice["level"], message: string, options: vscode.MessageOptions, items: readonly string[]): Thenable<string | undefined>;
}

const vscodeMessages: MessageApi = {
  show(level, message, options, items) {
    if (level === "info") return vscode.window.showInformationMessage(message, options, ...items);
    if (level === "warning") return vscode.window.showWarningMessage(message, options, ...items);
    return vscode.window.showErrorMessage(message, options, ...items);
  },
};

const KEEP = 50;

/**
 * Shows notifications with buttons. It never waits for the person to click: a command that awaited
 * its own toast would stay pending until the toast is dismissed. It also keeps the last few
 * notices so in-host tests can check what was said and which buttons were offered.
 */
export class Notifier {
  private readonly recentNotices: Notice[] = [];
  private messages: MessageApi = vscodeMessages;

  constructor(
    private readonly log: Log,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get recent(): readonly Notice[] {
    return this.recentNotices;
  }

  /** Replaces the message API (tests); returns a function that puts the previous one back. */
  setMessageApi(api: MessageApi): () => void {
    const previous = this.messages;
    this.messages = api;
    return () => {
      this.messages = previous;
    };
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

  /**
   * A modal question; resolves with the chosen button's title, undefined when dismissed. Only a
   * person's own command asks one (Start the first time, Take Over), never a Run in the background.
   */
  async confirm(message: string, detail: string, buttons: readonly string[]): Promise<string | undefined> {
    const clean = shown(message, this.env);
    const cleanDetail = shown(detail, this.env);
    this.remember({ level: "warning", message: clean, actions: [...buttons], at: Date.now(), modal: true, detail: cleanDetail });
    const choice = await this.messages.show("warning", clean, { modal: true, detail: cleanDetail }, buttons);
    return choice !== undefined && buttons.includes(choice) ? choice : undefined;
  }

  private remember(notice: Notice): void {
    this.recentNotices.push(notice);
    if (this.recentNotices.length > KEEP) this.recentNotices.shift();
  }

  private show(level: Notice["level"], rawMessage: string, actions: readonly NoticeAction[]): void {
    const message = shown(rawMessage, this.env);
    const titles = actions.map((a) => a.title);
    this.remember({ level, message, actions: titles, at: Date.now() });
    void Promise.resolve(this.messages.show(level, message, {}, titles))
      .then(async (choice) => {
        const action = actions.find((a) => a.title === choice);
        if (action) await action.run();
      })
      .catch((e: unknown) => this.log.error("a notification action failed", { error: String(e) }));
  }
}
