import * as vscode from "vscode";
import { HANDOFF_MARKER } from "../../core/run/handoff-marker";
import type { RunEvent } from "../../core/run/run-events";
import type { Log } from "../../ports/log";
import type { Tracker } from "../../ports/tracker";
import type { Links } from "../links";
import type { NoticeAction, Notifier } from "../notifier";
import { noticeFor, type NotificationLevel } from "./notification-policy";

export interface NotificationContext {
  readonly repo: string;
  readonly level: NotificationLevel;
  readonly tracker: Pick<Tracker, "listComments" | "getIssue" | "viewer">;
}

/**
 * Pops up what a person should know while a Run works unattended: each Hand-off (with a button to
 * its comment) and the Run's summary; merges only when the setting asks. Never awaited by the Run.
 */
export class RunNotifications {
  constructor(
    private readonly notifier: Notifier,
    private readonly links: Links,
    private readonly log: Log,
    private readonly showLog: () => void,
  ) {}

  handle(event: RunEvent, ctx: NotificationContext): void {
    const notice = noticeFor(event, ctx.level, ctx.repo);
    if (!notice) return;
    if (notice.kind === "summary") {
      const actions = [{ title: "Show Log", run: this.showLog }];
      if (notice.severity === "info") this.notifier.info(notice.message, actions);
      else this.notifier.warn(notice.message, actions);
      return;
    }
    const transcript: NoticeAction = { title: "Show Transcript", run: () => vscode.commands.executeCommand("ticketRunner.showTranscript", notice.ticket) };
    if (notice.kind === "handed-off") {
      const comment: NoticeAction = { title: "Open the Hand-off Comment", run: () => this.openHandoff(ctx, notice.ticket) };
      this.notifier.warn(notice.message, [comment, transcript]);
      return;
    }
    this.notifier.info(notice.message, [transcript]);
  }

  /** The newest hand-off comment on the issue; the issue itself when none is found. Asked only on a click. */
  private async openHandoff(ctx: NotificationContext, ticket: number): Promise<void> {
    try {
      const [comments, viewer] = await Promise.all([ctx.tracker.listComments(ticket), ctx.tracker.viewer()]);
      // Only our own account's hand-off is a record; anyone can post one shaped like it (ADR 0162).
      const handoff = [...comments].reverse().find((c) => c.author.toLowerCase() === viewer.toLowerCase() && c.body.startsWith(HANDOFF_MARKER));
      if (handoff) {
        await this.links.open(handoff.url);
        return;
      }
      const issue = await ctx.tracker.getIssue(ticket);
      if (issue) await this.links.open(issue.url);
    } catch (e) {
      this.log.warn(`could not find the hand-off comment of #${ticket}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
