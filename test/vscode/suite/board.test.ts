// The board inside a real VS Code, against a seeded sandbox. Runs when the launcher was given
// --setup test/vscode/support/board-setup.ts (npm run test:vscode:board); registers nothing otherwise.
import * as assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { BoardController } from "../../../src/vscode/board/controller";
import type { BoardNode } from "../../../src/vscode/board/view-model";
import { SandboxAdmin } from "../../../src/sandbox/admin-client";
import { waitFor } from "../../support/wait-for";
import { activeApi, contributes } from "../support/extension";
import type { BoardSeedInfo } from "../support/board-setup";

const raw = process.env["TICKET_RUNNER_BOARD_SEED"];

interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}

/** Enough of VS Code's when-clause grammar for our menus: &&, ||, !, ==, !=, =~ /re/. */
function evaluateWhen(expr: string, ctx: Record<string, string>): boolean {
  return expr.split("||").some((alt) =>
    alt.split("&&").every((term) => {
      const t = term.trim();
      const re = /^(\S+)\s*=~\s*\/(.*)\/([a-z]*)$/.exec(t);
      if (re) return new RegExp(re[2] ?? "", re[3]).test(ctx[re[1] ?? ""] ?? "");
      const eq = /^(\S+)\s*(==|!=)\s*(.+)$/.exec(t);
      if (eq) return (ctx[eq[1] ?? ""] === eq[3]?.trim()) === (eq[2] === "==");
      if (t.startsWith("!")) return !ctx[t.slice(1)];
      return Boolean(ctx[t]);
    }),
  );
}

function enabledActions(contextValue: string): string[] {
  const menus = (contributes() as unknown as { menus: Record<string, MenuItem[]> }).menus["view/item/context"] ?? [];
  const on = menus.filter((m) => !m.group?.startsWith("inline") && evaluateWhen(m.when ?? "true", { view: "ticketRunner.board", viewItem: contextValue }));
  return [...new Set(on.map((m) => m.command.replace(/^ticketRunner\./, "")))];
}

if (raw) {
  const seed = JSON.parse(raw) as BoardSeedInfo;
  const t = seed.tickets;

  describe("board (seeded sandbox)", function () {
    this.timeout(60_000);
    let board: BoardController;

    function roots(): BoardNode[] {
      return board.tree.getChildren();
    }
    function items(): Map<number, vscode.TreeItem> {
      const out = new Map<number, vscode.TreeItem>();
      for (const s of roots()) for (const n of board.tree.getChildren(s)) if (n.kind === "ticket") out.set(n.row.number, board.tree.getTreeItem(n));
      return out;
    }
    function item(n: number): vscode.TreeItem {
      const found = items().get(n);
      assert.ok(found, `no tree item for #${n}`);
      return found;
    }

    before(async () => {
      const api = await activeApi();
      board = api.board as unknown as BoardController;
      await vscode.commands.executeCommand("ticketRunner.board.focus");
      await vscode.commands.executeCommand("ticketRunner.filterAll");
      await waitFor(() => board.snapshot().phase === "ready", { what: "the board to load from the sandbox", timeoutMs: 30_000 });
    });

    it("shows the sections with their counts", () => {
      const sections = roots()
        .map((n) => board.tree.getTreeItem(n))
        .map((i) => [i.label, i.description]);
      assert.deepEqual(sections, [
        ["Running here", "1"],
        ["Claimed elsewhere", "2"],
        ["Stale", "1"],
        ["Frontier (ready)", "3"],
        ["Blocked", "0"],
        ["Needs a person", "1"],
        ["Stranded", "1"],
      ]);
      // An empty section has its own id, so it opens (expanded) when it gains rows (VS Code remembers state by id).
      const items = roots().map((n) => board.tree.getTreeItem(n));
      const blocked = items.find((i) => i.label === "Blocked");
      assert.deepEqual([blocked?.id, blocked?.collapsibleState], ["ticketRunner:section:blocked:empty", vscode.TreeItemCollapsibleState.None]);
      assert.deepEqual([items[0]?.id, items[0]?.collapsibleState], ["ticketRunner:section:running-here", vscode.TreeItemCollapsibleState.Expanded]);
    });

    it("writes the Run column as each row's description, with a coloured codicon per claim state", () => {
      // The seed's times are relative to when it ran (a Stage started 12.5 min before, a lease
      // expiring 31.5 min after); the board reads them against the clock, so on a slow machine
      // more minutes may have gone by: the figure may be any the elapsed time allows.
      const gone = (Date.now() - seed.seededAt) / 60_000;
      const minutes = (lo: number, hi: number) => `(${Array.from({ length: Math.floor(hi) - Math.floor(lo) + 1 }, (_, k) => Math.floor(lo) + k).join("|")})`;
      const expect: [number, string | RegExp, string, string | undefined][] = [
        [t.runningHere, new RegExp(`^● desk · implement · ${minutes(12.5, 12.5 + gone)}m$`), "sync~spin", "charts.green"],
        [t.claimedElsewhere, new RegExp(`^◌ laptop-2 · expires in ${minutes(31.5 - gone, 31.5)}m$`), "circle-outline", "charts.blue"],
        [t.stale, "⚠ stale 2h · laptop-2", "warning", "list.warningForeground"],
        [t.frontier, "free", "circle-large-outline", undefined],
        [t.needsPerson, /^handed off \S+ ago · desk$/, "report", "charts.red"],
        [t.stranded, "stranded · desk · verify", "debug-pause", "charts.orange"],
        [t.person, "person · cy", "account", "charts.purple"],
        [t.finished, /^finished \S+ ago · laptop-2$/, "pass", "testing.iconPassed"],
      ];
      for (const [n, description, icon, color] of expect) {
        const i = item(n);
        if (typeof description === "string") assert.equal(i.description, description, `#${n}`);
        else assert.match(String(i.description), description, `#${n}`);
        const themeIcon = i.iconPath as vscode.ThemeIcon;
        assert.equal(themeIcon.id, icon, `#${n} icon`);
        assert.equal(themeIcon.color?.id, color, `#${n} colour`);
        assert.equal(i.id, `ticketRunner:ticket:acme/shop#${n}`);
        assert.ok(i.tooltip instanceof vscode.MarkdownString, `#${n} has a Markdown tooltip`);
      }
    });

    it("enables only the context actions that make sense for each state", () => {
      const actions = (n: number): string[] => enabledActions(String(item(n).contextValue)).sort();
      assert.deepEqual(actions(t.frontier), ["claim", "openIssue", "startOnTicket"]);
      assert.deepEqual(actions(t.claimedElsewhere), ["openIssue", "takeOver"]);
      assert.deepEqual(actions(t.stale), ["openIssue", "takeOver"]);
      assert.deepEqual(actions(t.runningHere), ["handOff", "openIssue", "release", "showTranscript"]);
      assert.deepEqual(actions(t.stranded), ["handOff", "openIssue", "release", "startOnTicket"]);
      assert.deepEqual(actions(t.person), ["openIssue", "takeOver"]);
      assert.deepEqual(actions(t.needsPerson), ["handBack", "openIssue"]);
    });

    it("opens the lease comment when a claim is clicked, and the issue for a free ticket", async () => {
      const opened: string[] = [];
      board.setOpener(async (uri) => {
        opened.push(uri.toString(true));
        return true;
      });
      for (const n of [t.claimedElsewhere, t.frontier]) {
        const command = item(n).command;
        assert.ok(command, `#${n} has a click command`);
        await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
      }
      assert.deepEqual(opened, [seed.leaseUrls[t.claimedElsewhere], `${seed.apiUrl}/acme/shop/issues/${t.frontier}`]);
    });

    it("counts what runs here in the view's badge", () => {
      assert.equal(board.view.badge?.value, 1);
    });

    it("shows an error row with a Retry action when a fetch fails, and keeps the board", async () => {
      const admin = new SandboxAdmin(seed.apiUrl, seed.adminToken);
      await admin.setFaults({ errorRate: 1, errorRoutes: "^POST /graphql", errorStatus: 502 });
      await admin.clearRequestLog();
      try {
        await board.refresh();
        // The window's client is the CLI's (createOctokit): a 5xx on a query is retried, a bounded number of times.
        const failed = (await admin.requestLog()).filter((r) => r.path === "/graphql" && r.status === 502);
        assert.ok(failed.length > 1 && failed.length <= 4, `the board query was sent ${failed.length} time(s); a retrying client sends it 2-4 times`);
        const [first, ...rest] = roots().map((n) => board.tree.getTreeItem(n));
        assert.match(String(first?.label), /Couldn't refresh the board/);
        assert.match(String(first?.description), /502/);
        assert.equal(first?.command?.command, "ticketRunner.refresh");
        assert.equal(rest.length, 7, "the sections stay");
      } finally {
        await admin.setFaults({});
      }
      await vscode.commands.executeCommand("ticketRunner.refresh");
      await waitFor(() => board.snapshot().error === null, { what: "Retry to clear the error" });
      assert.equal(roots().length, 7);
    });

    it("shows a refused ticket-runner.json as the error row instead of guessing the labels, and comes back once it is fixed", async () => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      assert.ok(folder, "the board suite opens the Target folder");
      const file = join(folder, "ticket-runner.json");
      writeFileSync(file, '{ "labels": { "redy": "go" } }');
      try {
        await board.refresh();
        const nodes = roots().map((n) => board.tree.getTreeItem(n));
        assert.equal(nodes.length, 1, "only the error row: no board drawn with labels the file does not name");
        assert.match(String(nodes[0]?.label), /Couldn't load the board/);
        assert.match(
          String(nodes[0]?.description),
          /ticket-runner\.json is not a valid Ticket Runner config: unknown key "labels\.redy" \(did you mean "labels\.ready"\?\)/,
        );
        assert.equal(nodes[0]?.command?.command, "ticketRunner.refresh");
      } finally {
        rmSync(file, { force: true });
      }
      await vscode.commands.executeCommand("ticketRunner.refresh");
      await waitFor(() => board.snapshot().error === null && board.snapshot().phase === "ready", { what: "the board back once the file is gone" });
      assert.equal(roots().length, 7);
    });

    it("filters to mine", async () => {
      await vscode.commands.executeCommand("ticketRunner.filterMine");
      try {
        assert.deepEqual(
          [...items().keys()].sort((a, b) => a - b),
          [t.runningHere, t.stranded].sort((a, b) => a - b),
        );
      } finally {
        await vscode.commands.executeCommand("ticketRunner.filterAll");
      }
    });
  });
}
