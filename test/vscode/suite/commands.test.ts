import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { activeApi, contributes } from "../support/extension";
import { waitFor } from "../../support/wait-for";

describe("commands", () => {
  before(async () => {
    await activeApi();
  });

  it("registers every command package.json contributes", async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributes()
      .commands.map((c) => c.command)
      .filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(", ")}`);
  });

  it("contributes every command it registers (no typo'd or hidden ids)", async () => {
    const contributed = new Set(contributes().commands.map((c) => c.command));
    // One dot only: `ticketRunner.board.focus` and friends are VS Code's own view commands.
    const ours = (await vscode.commands.getCommands(true)).filter((id) => /^ticketRunner\.[A-Za-z]+$/.test(id));
    const extra = ours.filter((id) => !contributed.has(id));
    assert.deepEqual(extra, [], `registered but not contributed: ${extra.join(", ")}`);
    assert.ok(ours.length >= 14, `only ${ours.length} commands registered`);
  });

  it("gives every command the Ticket Runner category and a codicon", () => {
    for (const c of contributes().commands) {
      assert.equal(c.category, "Ticket Runner", `${c.command} category`);
      assert.match(c.icon ?? "", /^\$\([a-z-]+\)$/, `${c.command} icon`);
    }
  });

  it("refuses a row action that names no ticket, saying where to use it, and changes nothing", async () => {
    const api = await activeApi();
    const before = api.notices.length;
    const result = await vscode.commands.executeCommand("ticketRunner.handBack");
    assert.equal(result, undefined);
    const notice = await waitFor(() => api.notices.slice(before).find((n) => n.message.includes("Hand Back")), { what: "a Hand Back notice" });
    assert.equal(notice.level, "warning");
    assert.match(notice.message, /Hand Back acts on a ticket: use it from a ticket's context menu on the Board\./);
  });

  it("says so when Stop finds no Run in this window", async () => {
    const api = await activeApi();
    const before = api.notices.length;
    await vscode.commands.executeCommand("ticketRunner.stop");
    const notice = await waitFor(() => api.notices.slice(before).find((n) => n.message.includes("no Run is active")), { what: "a Stop notice" });
    assert.equal(notice.level, "info");
  });
});
