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
    const missing = contributes().commands.map((c) => c.command).filter((id) => !registered.has(id));
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

  it("says honestly that a capability is not built yet, and changes nothing", async () => {
    const api = await activeApi();
    const before = api.notices.length;
    const result = await vscode.commands.executeCommand("ticketRunner.handBack");
    assert.equal(result, undefined);
    const notice = await waitFor(() => api.notices.slice(before).find((n) => n.message.includes("Hand Back")), { what: "a Hand Back notice" });
    assert.equal(notice.level, "info");
    assert.match(notice.message, /not available in this version yet\. Nothing was changed\./);
  });
});
