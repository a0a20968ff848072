import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { activeApi, contributes } from "../support/extension";
import { waitFor } from "../../support/wait-for";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { resolveConnectionSettings } from "../../../src/vscode/connection-settings";

describe("the Board view", () => {
  it("is contributed in a Ticket Runner activity-bar container", () => {
    const c = contributes();
    assert.deepEqual(
      c.viewsContainers.activitybar.map((v) => [v.id, v.title]),
      [["ticketRunner", "Ticket Runner"]],
    );
    assert.deepEqual(
      c.views["ticketRunner"]?.map((v) => [v.id, v.name]),
      [["ticketRunner.board", "Board"]],
    );
  });

  it("opens, with a tree registered behind it", async () => {
    const api = await activeApi();
    await vscode.commands.executeCommand("ticketRunner.board.focus");
    await waitFor(() => api.board.view.visible, { what: "the Board view to be visible" });
  });

  it("sets the welcome views' context keys from the session and the folder's remote", async () => {
    const api = await activeApi();
    await waitFor(() => api.contextKey("ticketRunner.ready") === true, { what: "the first connection check" });
    // A test host has no VS Code GitHub session, so only an environment token signs it in.
    const expectSignedIn = resolveConnectionSettings(undefined, process.env).envToken !== undefined;
    assert.equal(api.contextKey("ticketRunner.signedIn"), expectSignedIn);
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.every((f) => !existsSync(join(f.uri.fsPath, ".git")))) {
      assert.equal(api.contextKey("ticketRunner.noRemote"), true, "a folder without .git has no remote");
    } else {
      assert.equal(typeof api.contextKey("ticketRunner.noRemote"), "boolean");
    }
  });

  it("refreshes from the Command Palette's command without an error", async () => {
    const api = await activeApi();
    const before = api.notices.length;
    await vscode.commands.executeCommand("ticketRunner.refresh");
    assert.deepEqual(api.notices.slice(before), []);
  });

  it("switches the filter between mine and all", async () => {
    const api = await activeApi();
    await vscode.commands.executeCommand("ticketRunner.filterMine");
    assert.equal(api.contextKey("ticketRunner.filterMine"), true);
    await vscode.commands.executeCommand("ticketRunner.filterAll");
    assert.equal(api.contextKey("ticketRunner.filterMine"), false);
  });
});
