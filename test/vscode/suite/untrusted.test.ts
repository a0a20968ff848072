// Restricted Mode (ADR 0230): the board shows, read-only, and every command that writes to GitHub,
// runs git or starts an agent is refused with the way out. Runs when the launcher was given
// --setup test/vscode/support/untrusted-setup.ts (npm run test:vscode:untrusted); registers
// nothing otherwise.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { BoardController } from "../../../src/vscode/board/controller";
import type { MessageApi } from "../../../src/vscode/notifier";
import { sandboxOctokit } from "../../support/board-seed";
import { waitFor } from "../../support/wait-for";
import { activeApi } from "../support/extension";
import type { BoardSeedInfo } from "../support/board-setup";

const raw = process.env["TICKET_RUNNER_BOARD_SEED"];

if (raw && process.env["TICKET_RUNNER_UNTRUSTED"] === "1") {
  const seed = JSON.parse(raw) as BoardSeedInfo;
  const t = seed.tickets;
  const admin = sandboxOctokit(seed.apiUrl, seed.adminToken);
  const issueState = async (n: number) => {
    const i = (await admin.rest.issues.get({ owner: "acme", repo: "shop", issue_number: n })).data;
    return { labels: i.labels.map((l) => (typeof l === "string" ? l : l.name)).sort(), assignees: (i.assignees ?? []).map((a) => a.login).sort() };
  };

  describe("untrusted folder (Restricted Mode)", function () {
    this.timeout(60_000);
    let board: BoardController;

    before(async () => {
      assert.equal(vscode.workspace.isTrusted, false, "the harness opened the folder in Restricted Mode");
      const api = await activeApi();
      board = api.board as unknown as BoardController;
      await vscode.commands.executeCommand("ticketRunner.board.focus");
      await vscode.commands.executeCommand("ticketRunner.filterAll");
      await waitFor(() => board.snapshot().phase === "ready", { what: "the board to load from the sandbox", timeoutMs: 30_000 });
    });

    it("still shows the board, read-only", () => {
      const rows = board.snapshot().model?.sections.flatMap((s) => s.rows.map((r) => r.number)) ?? [];
      assert.ok(rows.includes(t.frontier) && rows.includes(t.stranded), rows.join(", "));
    });

    it("refuses Start, Claim and every command that writes or runs, says why and offers Manage Workspace Trust; nothing changes on GitHub", async () => {
      const api = await activeApi();
      const before = { frontier: await issueState(t.frontier), stranded: await issueState(t.stranded), needsPerson: await issueState(t.needsPerson) };
      const row = (n: number) => ({ kind: "ticket", id: `x${n}`, row: { number: n, issueUrl: "u" } });
      const attempts: [string, unknown[]][] = [
        ["ticketRunner.start", []],
        ["ticketRunner.startOnTicket", [row(t.frontier)]],
        ["ticketRunner.claim", [row(t.frontier)]],
        ["ticketRunner.takeOver", [row(t.claimedElsewhere)]],
        ["ticketRunner.release", [row(t.stranded)]],
        ["ticketRunner.handOff", [row(t.stranded)]],
        ["ticketRunner.handBack", [row(t.needsPerson)]],
        ["ticketRunner.init", []],
      ];
      for (const [command, args] of attempts) {
        const seen = api.notices.length;
        await vscode.commands.executeCommand(command, ...args);
        const notice = api.notices.slice(seen).find((n) => n.level === "warning");
        assert.ok(notice, `${command} said nothing`);
        assert.match(
          notice.message,
          /is not available in Restricted Mode: VS Code does not trust this folder, and its ticket-runner\.json chooses the programs a Run starts/,
          command,
        );
        assert.match(notice.message, /Nothing was claimed or run\..*Manage Workspace Trust/, command);
        assert.equal(notice.actions[0], "Manage Workspace Trust", command);
        assert.equal(api.runs.windowRun.isActive(), false, `${command} started no Run`);
      }
      assert.deepEqual(
        { frontier: await issueState(t.frontier), stranded: await issueState(t.stranded), needsPerson: await issueState(t.needsPerson) },
        before,
      );
    });

    it("the refusal's button opens VS Code's Workspace Trust editor", async () => {
      const api = await activeApi();
      const press: MessageApi = { show: (_l, message, _o, items) => Promise.resolve(/Restricted Mode/.test(message) ? items[0] : undefined) };
      const restore = api.notifier.setMessageApi(press);
      try {
        await vscode.commands.executeCommand("ticketRunner.start");
        await waitFor(() => /Workspace Trust/.test(vscode.window.tabGroups.activeTabGroup.activeTab?.label ?? ""), {
          what: "the Workspace Trust editor to open",
          timeoutMs: 20_000,
        });
      } finally {
        restore();
      }
    });
  });
}
