import * as assert from "node:assert/strict";
import { inertLinkedText, inertMarkdown } from "../../../src/core/inert-text";
import { escapeMarkdown } from "../../../src/vscode/board/markdown";
import { renderStatusBar } from "../../../src/vscode/status-bar";

// What VS Code 1.100 (code-server 4.100.3) makes a link in a notification or dialog: copied from
// its workbench.js (parseLinkedText). A `command:` target runs that command when clicked.
const VSCODE_LINKED_TEXT = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
// Its theme icons, drawn over the HTML the Markdown renders to (so a backslash escape does not stop them).
const THEME_ICON = /\$\([a-z0-9-]+?(?:~[a-z0-9-]*?)?\)/i;
const ZWSP = "\u200B";

/** Roughly what a Markdown renderer leaves of escaped text: the backslash escapes resolved. */
const rendered = (markdown: string) => markdown.replace(/\\(.)/g, "$1");

const hostile = [
  "[Open the terminal](command:workbench.action.terminal.new)",
  '[Run](command:ticketRunner.stop "Stop it")',
  "[beacon](https://evil.example/b.png?x=1) and [file](file:///etc/passwd)",
  "$(zap) $(sync~spin) urgent",
  "see https://evil.example and www.evil.example",
];

describe("agent and issue text in VS Code (notifications, trusted tooltips)", () => {
  it("a notification, dialog or quick pick shows it as written, with no link or theme icon VS Code would make", () => {
    for (const text of hostile) {
      const out = inertLinkedText(text);
      assert.equal([...out.matchAll(VSCODE_LINKED_TEXT)].length, 0, out);
      assert.ok(!THEME_ICON.test(out), `a quick pick would draw an icon: ${out}`);
      assert.equal(out.replaceAll(ZWSP, ""), text, "reads the same: no backslash shows");
    }
    // Before ADR 0231 the Notifier passed it on as it was: every one of the first three was a live link.
    assert.equal(hostile.slice(0, 3).filter((t) => [...t.matchAll(VSCODE_LINKED_TEXT)].length > 0).length, 3);
  });

  it("Markdown renders no link, image, theme icon or bare URL from it", () => {
    for (const text of hostile) {
      const out = rendered(inertMarkdown(text));
      assert.ok(!THEME_ICON.test(out), `theme icon in ${out}`);
      assert.ok(!/https?:\/\/|www\./.test(out), out);
      assert.ok(!/(?<!\\)\]\(/.test(inertMarkdown(text)), "no unescaped ](");
    }
  });

  it("the status bar's trusted tooltip (theme icons on) escapes a ticket's title with that one helper", () => {
    for (const title of hostile) {
      const view = renderStatusBar({ kind: "running", lanes: 1, repo: "demo/shop", busy: [{ ticket: 4, stage: "implement", title }] });
      const line = view.tooltip.split("\n").find((l) => l.includes("#4")) ?? "";
      const shownTitle = line.split(" · ")[1] ?? "";
      assert.equal(shownTitle, escapeMarkdown(title), line);
      assert.ok(!THEME_ICON.test(rendered(shownTitle)), `a title's $(icon) would be drawn: ${line}`);
      // The tooltip's own links (Transcript, Worktree, Stop) stay; the title adds none.
      const links = [...view.tooltip.matchAll(/(?<!\\)\]\((command:[^)\s?]+)/g)].map((m) => m[1]);
      assert.deepEqual(
        [...new Set(links)].sort(),
        ["command:ticketRunner.openWorktree", "command:ticketRunner.showTranscript", "command:ticketRunner.stop"],
        view.tooltip,
      );
    }
  });
});
