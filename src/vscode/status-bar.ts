// Pure: what the status bar shows for a Run's state. No `vscode` import, so it is unit-tested
// without a VS Code; status-bar-item.ts applies the result to a real StatusBarItem.

import { oneLine } from "../core/text/lines";
import { escapeMarkdown } from "./board/markdown";

export type RunStatus =
  | { readonly kind: "idle" }
  /** Start was pressed: checks, the Run lock and the sweep come before the first Lane. */
  | { readonly kind: "starting"; readonly repo: string }
  | { readonly kind: "running"; readonly lanes: number; readonly busy: readonly LaneActivity[]; readonly repo?: string }
  | { readonly kind: "stopping"; readonly finishing: readonly number[]; readonly busy?: readonly LaneActivity[]; readonly repo?: string };

export interface LaneActivity {
  readonly ticket: number;
  /** The Stage running now, e.g. `implement`, `checks`, `ci`; `setup` before the first Stage. */
  readonly stage: string;
  readonly title?: string;
  /** When the Stage started, `HH:MM` UTC like the run id (the tooltip is not re-rendered every minute). */
  readonly since?: string;
}

export interface StatusBarView {
  readonly text: string;
  /** Markdown; command links are trusted for TRUSTED_COMMANDS only (status-bar-item.ts). */
  readonly tooltip: string;
  readonly command: string | undefined;
  readonly backgroundColor: "statusBarItem.warningBackground" | undefined;
  readonly visible: boolean;
}

/** The only commands the tooltip's links may run. */
export const TRUSTED_COMMANDS = ["ticketRunner.stop", "ticketRunner.showTranscript", "ticketRunner.openWorktree"] as const;

/** Busy lanes named in the text itself; the tooltip lists all of them. */
const MAX_IN_TEXT = 3;

const STOP_LINK = `[$(debug-stop) Stop](command:ticketRunner.stop "Busy lanes finish; nothing new is claimed")`;

/**
 * Idle is hidden (docs/adr/0022-run-in-the-extension-host.md): Start is on the Board's title bar
 * and in the Command Palette, and a status-bar entry in every window that ever showed the board
 * would be noise. While a Run is active the item is the stop button, on the warning background.
 */
export function renderStatusBar(status: RunStatus): StatusBarView {
  switch (status.kind) {
    case "idle":
      return { text: "", tooltip: "", command: undefined, backgroundColor: undefined, visible: false };
    case "starting": {
      const tooltip = `**Ticket Runner** is starting a Run on ${code(status.repo)}: checking the checkout, taking the Run lock, sweeping Stranded tickets.\n\n${STOP_LINK}`;
      return {
        text: "$(sync~spin) Ticket Runner · starting",
        tooltip,
        command: "ticketRunner.stop",
        backgroundColor: "statusBarItem.warningBackground",
        visible: true,
      };
    }
    case "running": {
      const lanes = `${status.lanes} ${status.lanes === 1 ? "lane" : "lanes"}`;
      const shown = status.busy.slice(0, MAX_IN_TEXT).map((b) => `#${b.ticket} ${b.stage}`);
      const more = status.busy.length > MAX_IN_TEXT ? [`+${status.busy.length - MAX_IN_TEXT}`] : [];
      const text = ["$(sync~spin) Ticket Runner", lanes, ...shown, ...more].join(" · ");
      const where = status.repo ? ` on ${code(status.repo)}` : "";
      const rows = status.busy.length ? status.busy.map(laneRow).join("\n") : "_No lane is busy: waiting for a ready ticket._";
      const tooltip = `**Ticket Runner** is running${where} with ${lanes}.\n\n${rows}\n\n${STOP_LINK}`;
      return { text, tooltip, command: "ticketRunner.stop", backgroundColor: "statusBarItem.warningBackground", visible: true };
    }
    case "stopping": {
      const tickets = status.finishing.map((n) => `#${n}`).join(" ");
      const text = status.finishing.length ? `$(loading~spin) Ticket Runner · stopping: finishing ${tickets}` : "$(loading~spin) Ticket Runner · stopping";
      const rows = status.busy?.length ? `\n\n${status.busy.map(laneRow).join("\n")}` : "";
      const tooltip = `**Ticket Runner** is stopping: busy lanes finish, nothing new is claimed.${tickets ? `\n\nFinishing ${tickets}.` : ""}${rows}`;
      return { text, tooltip, command: undefined, backgroundColor: undefined, visible: true };
    }
  }
}

/** `- **#4** implement since 10:02 · Add a helper · [Transcript] · [Worktree]` */
function laneRow(b: LaneActivity): string {
  const args = encodeURIComponent(JSON.stringify([b.ticket]));
  const parts = [`- **#${b.ticket}** ${escapeMarkdown(b.stage)}${b.since ? ` since ${b.since}` : ""}`];
  if (b.title) parts.push(escapeMarkdown(oneLine(b.title, 80)));
  parts.push(`[$(output) Transcript](command:ticketRunner.showTranscript?${args} "Show the transcript of #${b.ticket}")`);
  parts.push(`[$(folder-opened) Worktree](command:ticketRunner.openWorktree?${args} "Open the worktree of #${b.ticket}")`);
  return parts.join(" · ");
}

function code(text: string): string {
  return "`" + text.replace(/`/g, "'") + "`";
}
