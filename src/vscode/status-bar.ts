// Pure: what the status bar shows for a Run's state. No `vscode` import, so it is unit-tested
// without a VS Code; status-bar-item.ts applies the result to a real StatusBarItem.

export type RunStatus =
  | { readonly kind: "idle" }
  | { readonly kind: "running"; readonly lanes: number; readonly busy: readonly LaneActivity[] }
  | { readonly kind: "stopping"; readonly finishing: readonly number[] };

export interface LaneActivity {
  readonly ticket: number;
  readonly stage: string;
}

export interface StatusBarView {
  readonly text: string;
  /** Markdown; command links are trusted for our own commands only. */
  readonly tooltip: string;
  readonly command: string | undefined;
  readonly backgroundColor: "statusBarItem.warningBackground" | undefined;
  readonly visible: boolean;
}

/** Busy lanes named in the text itself; the tooltip lists all of them. */
const MAX_IN_TEXT = 3;

/** Idle is hidden: the board's title bar and the Command Palette already offer Start. */
export function renderStatusBar(status: RunStatus): StatusBarView {
  switch (status.kind) {
    case "idle":
      return { text: "", tooltip: "", command: undefined, backgroundColor: undefined, visible: false };
    case "running": {
      const lanes = `${status.lanes} ${status.lanes === 1 ? "lane" : "lanes"}`;
      const shown = status.busy.slice(0, MAX_IN_TEXT).map((b) => `#${b.ticket} ${b.stage}`);
      const more = status.busy.length > MAX_IN_TEXT ? [`+${status.busy.length - MAX_IN_TEXT}`] : [];
      const text = ["$(sync~spin) Ticket Runner", lanes, ...shown, ...more].join(" · ");
      const rows = status.busy.length
        ? status.busy.map((b) => `- #${b.ticket}: ${escapeMarkdown(b.stage)}`).join("\n")
        : "_No lane is busy: waiting for a ready ticket._";
      const tooltip = `**Ticket Runner** is running with ${lanes}.\n\n${rows}\n\n[$(debug-stop) Stop](command:ticketRunner.stop "Busy lanes finish; nothing new is claimed")`;
      return { text, tooltip, command: "ticketRunner.stop", backgroundColor: "statusBarItem.warningBackground", visible: true };
    }
    case "stopping": {
      const tickets = status.finishing.map((n) => `#${n}`).join(" ");
      const text = status.finishing.length
        ? `$(loading~spin) Ticket Runner · stopping: finishing ${tickets}`
        : "$(loading~spin) Ticket Runner · stopping";
      const tooltip = `**Ticket Runner** is stopping: busy lanes finish, nothing new is claimed.${tickets ? `\n\nFinishing ${tickets}.` : ""}`;
      return { text, tooltip, command: undefined, backgroundColor: undefined, visible: true };
    }
  }
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, "\\$&");
}
