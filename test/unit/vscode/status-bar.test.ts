import * as assert from "node:assert/strict";
import { renderStatusBar } from "../../../src/vscode/status-bar";

describe("renderStatusBar", () => {
  it("hides the item when idle", () => {
    assert.equal(renderStatusBar({ kind: "idle" }).visible, false);
  });

  it("names the lanes and what each busy lane does, as a stop button with the warning background", () => {
    const view = renderStatusBar({ kind: "running", lanes: 2, busy: [{ ticket: 4, stage: "implement" }, { ticket: 9, stage: "checks" }] });
    assert.equal(view.text, "$(sync~spin) Ticket Runner · 2 lanes · #4 implement · #9 checks");
    assert.equal(view.command, "ticketRunner.stop");
    assert.equal(view.backgroundColor, "statusBarItem.warningBackground");
    assert.equal(view.visible, true);
    assert.match(view.tooltip, /command:ticketRunner\.stop/);
    assert.match(view.tooltip, /- #4: implement\n- #9: checks/);
  });

  it("keeps the text short with many busy lanes; the tooltip lists all", () => {
    const busy = [1, 2, 3, 4, 5].map((ticket) => ({ ticket, stage: "verify" }));
    const view = renderStatusBar({ kind: "running", lanes: 5, busy });
    assert.equal(view.text, "$(sync~spin) Ticket Runner · 5 lanes · #1 verify · #2 verify · #3 verify · +2");
    assert.equal(view.tooltip.match(/^- #/gm)?.length, 5);
  });

  it("says one lane, singular, and that it waits when nothing is busy", () => {
    const view = renderStatusBar({ kind: "running", lanes: 1, busy: [] });
    assert.equal(view.text, "$(sync~spin) Ticket Runner · 1 lane");
    assert.match(view.tooltip, /waiting for a ready ticket/);
  });

  it("reads 'stopping: finishing #4 #9' after a Stop, with no stop command", () => {
    const view = renderStatusBar({ kind: "stopping", finishing: [4, 9] });
    assert.equal(view.text, "$(loading~spin) Ticket Runner · stopping: finishing #4 #9");
    assert.equal(view.command, undefined);
    assert.equal(view.backgroundColor, undefined);
  });

  it("escapes Markdown in stage names inside the tooltip", () => {
    const view = renderStatusBar({ kind: "running", lanes: 1, busy: [{ ticket: 1, stage: "[x](command:evil)" }] });
    assert.ok(!view.tooltip.includes("](command:evil)"), view.tooltip);
  });
});
