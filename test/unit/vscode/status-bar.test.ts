import * as assert from "node:assert/strict";
import { renderStatusBar } from "../../../src/vscode/status-bar";

describe("renderStatusBar", () => {
  it("hides the item when idle", () => {
    assert.equal(renderStatusBar({ kind: "idle" }).visible, false);
  });

  it("names the lanes and what each busy lane does, as a stop button with the warning background", () => {
    const view = renderStatusBar({
      kind: "running",
      lanes: 2,
      busy: [
        { ticket: 4, stage: "implement" },
        { ticket: 9, stage: "checks" },
      ],
    });
    assert.equal(view.text, "$(sync~spin) Ticket Runner · 2 lanes · #4 implement · #9 checks");
    assert.equal(view.command, "ticketRunner.stop");
    assert.equal(view.backgroundColor, "statusBarItem.warningBackground");
    assert.equal(view.visible, true);
    assert.match(view.tooltip, /command:ticketRunner\.stop/);
    assert.match(view.tooltip, /^- \*\*#4\*\* implement/m);
    assert.match(view.tooltip, /^- \*\*#9\*\* checks/m);
  });

  it("gives each lane in the tooltip its title, its Stage's start and links to its transcript and worktree", () => {
    const view = renderStatusBar({
      kind: "running",
      lanes: 1,
      repo: "demo/shop",
      busy: [{ ticket: 42, stage: "verify", title: "Add a helper", since: "10:02" }],
    });
    assert.match(view.tooltip, /running on `demo\/shop` with 1 lane/);
    assert.match(view.tooltip, /\*\*#42\*\* verify since 10:02 · Add a helper/);
    assert.ok(view.tooltip.includes(`command:ticketRunner.showTranscript?${encodeURIComponent("[42]")}`), view.tooltip);
    assert.ok(view.tooltip.includes(`command:ticketRunner.openWorktree?${encodeURIComponent("[42]")}`), view.tooltip);
  });

  it("keeps the text short with many busy lanes; the tooltip lists all", () => {
    const busy = [1, 2, 3, 4, 5].map((ticket) => ({ ticket, stage: "verify" }));
    const view = renderStatusBar({ kind: "running", lanes: 5, busy });
    assert.equal(view.text, "$(sync~spin) Ticket Runner · 5 lanes · #1 verify · #2 verify · #3 verify · +2");
    assert.equal(view.tooltip.match(/^- \*\*#/gm)?.length, 5);
  });

  it("says one lane, singular, and that it waits when nothing is busy", () => {
    const view = renderStatusBar({ kind: "running", lanes: 1, busy: [] });
    assert.equal(view.text, "$(sync~spin) Ticket Runner · 1 lane");
    assert.match(view.tooltip, /waiting for a ready ticket/);
  });

  it("shows a starting Run as a stop button too", () => {
    const view = renderStatusBar({ kind: "starting", repo: "demo/shop" });
    assert.equal(view.text, "$(sync~spin) Ticket Runner · starting");
    assert.equal(view.command, "ticketRunner.stop");
  });

  it("reads 'stopping: finishing #4 #9' after a Stop, with no stop command", () => {
    const view = renderStatusBar({ kind: "stopping", finishing: [4, 9] });
    assert.equal(view.text, "$(loading~spin) Ticket Runner · stopping: finishing #4 #9");
    assert.equal(view.command, undefined);
    assert.equal(view.backgroundColor, undefined);
  });

  it("escapes Markdown and theme icons in stage names and titles inside the tooltip", () => {
    const view = renderStatusBar({ kind: "running", lanes: 1, busy: [{ ticket: 1, stage: "[x](command:evil)", title: "$(alert) [y](command:worse)" }] });
    assert.ok(!view.tooltip.includes("](command:evil)"), view.tooltip);
    assert.ok(!view.tooltip.includes("](command:worse)"), view.tooltip);
    assert.ok(!view.tooltip.includes(" $(alert)"), view.tooltip);
  });
});
