import { strict as assert } from "node:assert";
import { buildBoard } from "../../../src/core/board/build";
import type { BoardModel } from "../../../src/core/board/types";
import { escapeMarkdown, mdLink } from "../../../src/vscode/board/markdown";
import {
  childNodes,
  nextSnapshot,
  nodeVm,
  noReadyTickets,
  renderKey,
  rootNodes,
  ticketOfNode,
  type BoardNode,
  type BoardSnapshot,
  type NodeVm,
} from "../../../src/vscode/board/view-model";
import { input, issue, lease, minutes, oneOfEach, reading } from "./board-fixtures";

function snap(model: BoardModel | null, over: Partial<BoardSnapshot> = {}): BoardSnapshot {
  return { phase: "ready", model, error: null, fetchedAt: new Date(), filter: "all", repo: "acme/shop", ...over };
}

function tickets(s: BoardSnapshot): NodeVm[] {
  return rootNodes(s)
    .flatMap((n: BoardNode) => childNodes(n))
    .map(nodeVm);
}

describe("board tree view-models", () => {
  it("shows seven sections with counts, then ticket rows labelled `#n title` with the Run column", () => {
    const s = snap(buildBoard(oneOfEach()));
    const roots = rootNodes(s).map(nodeVm);
    assert.deepEqual(
      roots.map((r) => [r.label, r.description, r.collapsible]),
      [
        ["Running here", "1", "expanded"],
        ["Claimed elsewhere", "2", "expanded"],
        ["Stale", "1", "expanded"],
        ["Frontier (ready)", "1", "expanded"],
        ["Blocked", "0", "none"],
        ["Needs a person", "1", "expanded"],
        ["Stranded", "1", "expanded"],
      ],
    );
    const rows = tickets(s);
    assert.equal(rows[0]?.label, "#1 Ticket 1");
    assert.equal(rows[0]?.description, "● desk · implement · 12m");
    assert.deepEqual(rows[0]?.icon, { id: "sync~spin", color: "charts.green" });
    assert.deepEqual(
      rows.map((r) => r.id),
      [
        "ticketRunner:ticket:acme/shop#1",
        "ticketRunner:ticket:acme/shop#2",
        "ticketRunner:ticket:acme/shop#7",
        "ticketRunner:ticket:acme/shop#3",
        "ticketRunner:ticket:acme/shop#4",
        "ticketRunner:ticket:acme/shop#5",
        "ticketRunner:ticket:acme/shop#6",
      ],
    );
  });

  it("opens a section that gains rows: an empty section has its own id, so VS Code's remembered state does not stick", () => {
    const empty = snap(buildBoard(input([issue(4, { labels: ["ready-for-agent"] })])));
    const busy = snap(buildBoard(oneOfEach()));
    const running = (s: BoardSnapshot) =>
      rootNodes(s)
        .map(nodeVm)
        .find((r) => r.label === "Running here");
    assert.deepEqual([running(empty)?.id, running(empty)?.collapsible], ["ticketRunner:section:running-here:empty", "none"]);
    assert.deepEqual([running(busy)?.id, running(busy)?.collapsible], ["ticketRunner:section:running-here", "expanded"]);
    const blocked = snap(buildBoard(input([issue(8, { labels: ["ready-for-agent"], openBlockers: ["#3"] })])));
    const row = tickets(blocked).find((r) => r.label.startsWith("#8 "));
    assert.deepEqual([row?.description, row?.icon?.id, row?.contextValue], ["blocked by #3", "lock", "ticketRunner:ticket"]);
  });

  it("gives each marker its codicon and theme colour", () => {
    const icons = tickets(snap(buildBoard(oneOfEach()))).map((r) => `${r.icon?.id}/${r.icon?.color ?? "-"}`);
    assert.deepEqual(icons, [
      "sync~spin/charts.green",
      "circle-outline/charts.blue",
      "account/charts.purple",
      "warning/list.warningForeground",
      "circle-large-outline/-",
      "report/charts.red",
      "debug-pause/charts.orange",
    ]);
  });

  it("says in the tooltip when the rate limit that released a ticket resets, and in the description until it has", () => {
    const released = lease(9, { state: "released", limitResetsAt: minutes(52) });
    const vm = tickets(snap(buildBoard(input([issue(9, { readings: [reading(released)] })])))).find((r) => r.label.startsWith("#9 "));
    assert.equal(vm?.description, "released 5m ago · desk · limit resets 2026-03-01 12:52 UTC");
    assert.match(vm?.tooltip?.markdown ?? "", /Released by a rate limit that resets 2026-03-01 12:52 UTC/);
    const plain = tickets(snap(buildBoard(input([issue(9, { readings: [reading(lease(9, { state: "released" }))] })])))).find((r) => r.label.startsWith("#9 "));
    assert.doesNotMatch(plain?.tooltip?.markdown ?? "", /rate limit/);
  });

  it("opens the lease comment for a claim and the issue for a free ticket", () => {
    const rows = tickets(snap(buildBoard(oneOfEach())));
    const claimed = rows.find((r) => r.label.startsWith("#2 "));
    const free = rows.find((r) => r.label.startsWith("#4 "));
    assert.deepEqual(claimed?.command, {
      id: "ticketRunner.board.open",
      title: "Open the lease comment",
      args: ["https://github.com/acme/shop/issues/2#issuecomment-4294967298"],
    });
    assert.deepEqual(free?.command, { id: "ticketRunner.board.open", title: "Open the issue", args: ["https://github.com/acme/shop/issues/4"] });
  });

  it("escapes a hostile title in the tooltip and keeps the label one line", () => {
    const model = buildBoard(input([issue(9, { title: "[click](command:workbench.action.terminal.new)\n<img src=x onerror=alert(1)> **bold**" })]));
    const [row] = tickets(snap(model));
    assert.equal(row?.label, "#9 [click](command:workbench.action.terminal.new) <img src=x onerror=alert(1)> **bold**");
    assert.ok(!/(^|[^\\])\]\(command:/.test(row?.tooltip?.markdown ?? ""), "no live command link");
    assert.ok(!/(^|[^\\])<img/.test(row?.tooltip?.markdown ?? ""), "no raw HTML");
    assert.deepEqual(row?.tooltip?.trustedCommands, []);
  });

  it("puts the error row first and keeps the board when a refresh fails", () => {
    const error = { reason: "server" as const, message: "GitHub answered 502", at: new Date(), retryAt: null };
    const roots = rootNodes(snap(buildBoard(oneOfEach()), { error })).map(nodeVm);
    assert.equal(roots.length, 8);
    assert.equal(roots[0]?.label, "Couldn't refresh the board, click to retry");
    assert.equal(roots[0]?.description, "GitHub answered 502");
    assert.equal(roots[0]?.command?.id, "ticketRunner.refresh");
    assert.deepEqual(roots[0]?.tooltip?.trustedCommands, ["ticketRunner.refresh"]);
    const first = rootNodes(snap(null, { error, phase: "idle" })).map(nodeVm);
    assert.deepEqual(
      first.map((r) => r.label),
      ["Couldn't load the board, click to retry"],
    );
  });

  it("is empty for the welcome views, shows loading, and offers Show all under an empty mine filter", () => {
    assert.deepEqual(rootNodes(snap(null, { phase: "idle" })), []);
    assert.deepEqual(rootNodes(snap(buildBoard(input([])))), []);
    assert.match(nodeVm(rootNodes(snap(null, { phase: "loading" }))[0]!).label, /^Loading the tickets of acme\/shop/);
    const mine = rootNodes(snap(buildBoard(input([issue(1)]), "mine"), { filter: "mine" })).map(nodeVm);
    assert.equal(mine[0]?.command?.id, "ticketRunner.filterAll");
  });

  it("never empties a board with tickets for a reconnect, a fetch in flight or a failed fetch (no welcome flash)", () => {
    const good = snap(buildBoard(oneOfEach()));
    const error = { reason: "server" as const, message: "GitHub answered 502", at: new Date(), retryAt: null };
    for (const next of [snap(null, { phase: "idle" }), snap(null, { phase: "loading" }), snap(null, { phase: "idle", error })]) {
      const shown = nextSnapshot(good, next);
      assert.equal(shown.model, good.model, `kept for ${next.phase}${next.error ? " + error" : ""}`);
      assert.equal(rootNodes(shown).filter((n) => n.kind === "section").length, 7);
      assert.notEqual(noReadyTickets(shown), true);
    }
    // Leaving the repository (signed out, no Target) empties it, so the right welcome view shows.
    assert.equal(nextSnapshot(good, snap(null, { phase: "idle", repo: null })).model, null);
    assert.equal(nextSnapshot(good, snap(null, { phase: "idle", repo: "acme/other" })).model, null);
    // A refused ticket-runner.json may name other labels: only its error row shows, not the old board.
    const refused = nextSnapshot(
      good,
      snap(null, {
        phase: "idle",
        error: { reason: "bad-config", message: "ticket-runner.json is not a valid Ticket Runner config", at: new Date(), retryAt: null },
      }),
    );
    assert.equal(refused.model, null);
    assert.deepEqual(
      rootNodes(refused).map((n) => n.kind),
      ["error"],
    );
    // A new board replaces the old one.
    const fresh = snap(buildBoard(input([issue(4, { labels: ["ready-for-agent"] })])));
    assert.equal(nextSnapshot(good, fresh).model, fresh.model);
  });

  it("says there are no ready tickets only after a finished fetch found none, and leaves the key alone while loading", () => {
    const none = buildBoard(input([]));
    assert.equal(noReadyTickets(snap(none)), true);
    assert.equal(noReadyTickets(snap(none, { phase: "loading" })), null);
    assert.equal(noReadyTickets(snap(buildBoard(oneOfEach()))), false);
    assert.equal(noReadyTickets(snap(none, { filter: "mine" })), false);
    assert.equal(noReadyTickets(snap(null, { phase: "idle" })), false);
  });

  it("redraws only what a person can see change: a refresh that changes nothing keeps the rows (and an open context menu)", () => {
    const model = buildBoard(oneOfEach());
    const shown = snap(model);
    assert.equal(renderKey(snap(model, { phase: "loading" })), renderKey(shown), "a fetch in flight draws the same board");
    assert.equal(renderKey(snap(buildBoard(oneOfEach()), { fetchedAt: new Date(0) })), renderKey(shown), "a refetch with the same content");
    const later = oneOfEach();
    const moved = buildBoard({ ...later, now: new Date(later.now.getTime() + 60_000) });
    assert.notEqual(renderKey(snap(moved)), renderKey(shown), "the Run column moved on a minute");
    const error = { reason: "server" as const, message: "GitHub answered 502", at: new Date(), retryAt: null };
    assert.notEqual(renderKey(snap(model, { error })), renderKey(shown), "the error row appears");
  });

  it("gives context-menu commands the ticket they ran on, and nothing for other nodes", () => {
    const s = snap(buildBoard(oneOfEach()));
    const [section] = rootNodes(s);
    const [ticket] = childNodes(section!);
    assert.equal(ticketOfNode(ticket)?.number, 1);
    assert.equal(ticketOfNode(section), null);
    assert.equal(ticketOfNode(undefined), null);
    assert.equal(ticketOfNode({ kind: "ticket" }), null);
  });

  it("handles thousands of tickets", () => {
    const model = buildBoard(input(Array.from({ length: 5000 }, (_, i) => issue(i + 1))));
    const rows = tickets(snap(model));
    assert.equal(rows.length, 5000);
    assert.equal(new Set(rows.map((r) => r.id)).size, 5000);
  });
});

describe("board tree helpers", () => {
  it("escapes Markdown and builds only http(s) links", () => {
    assert.equal(escapeMarkdown("a*b_[c](d)<e>"), "a\\*b\\_\\[c\\]\\(d\\)\\<e\\>");
    assert.equal(mdLink("x", "javascript:alert(1)"), null);
    assert.equal(mdLink("x", "command:foo"), null);
    assert.equal(mdLink("x", "https://h/a(b)"), "[x](https://h/a%28b%29)");
  });
});
