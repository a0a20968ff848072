import * as assert from "node:assert/strict";
import type { RunEvent } from "../../../src/core/run/run-events";
import { noticeFor } from "../../../src/vscode/run/notification-policy";
import { consentCovers, startQuestion } from "../../../src/vscode/run/start-confirmation";
import { rowFromArgs, ticketFromArgs } from "../../../src/vscode/run/ticket-args";
import { planWorktreeFolder, worktreeFolderName } from "../../../src/vscode/run/worktree-policy";

const at = "2026-09-17T10:02:03.000Z";

describe("worktree folders: what happens in which window", () => {
  it("adds folders only to a window with a workspace file (else VS Code would restart the extension host)", () => {
    assert.deepEqual(planWorktreeFolder("add-and-remove", { hasWorkspaceFile: true }), { kind: "add", removeAfterMerge: true });
    assert.deepEqual(planWorktreeFolder("add-and-keep", { hasWorkspaceFile: true }), { kind: "add", removeAfterMerge: false });
    assert.deepEqual(planWorktreeFolder("add-and-remove", { hasWorkspaceFile: false }), { kind: "offer" });
    assert.deepEqual(planWorktreeFolder("add-and-keep", { hasWorkspaceFile: false }), { kind: "offer" });
  });

  it("new-window and off never touch this window's folders", () => {
    for (const hasWorkspaceFile of [true, false]) {
      assert.deepEqual(planWorktreeFolder("new-window", { hasWorkspaceFile }), { kind: "new-window" });
      assert.deepEqual(planWorktreeFolder("off", { hasWorkspaceFile }), { kind: "none" });
    }
  });

  it("names a folder `#42 title`, on one line, at most 60 characters", () => {
    assert.equal(worktreeFolderName(42, "Add a formatPrice helper"), "#42 Add a formatPrice helper");
    assert.equal(worktreeFolderName(7, "two\nlines\u202e rtl"), "#7 two lines rtl");
    assert.equal(worktreeFolderName(1, "x".repeat(200)).length, 60);
    assert.equal(worktreeFolderName(5, "   "), "#5");
  });
});

describe("notifications: what pops up at which level", () => {
  const handoff: RunEvent = { kind: "ticket-ended", lane: 0, ticket: 3, ending: "handed-off", line: "at verify: 1 of 2 criteria unmet", at };
  const merged: RunEvent = { kind: "ticket-ended", lane: 0, ticket: 1, ending: "merged", line: "PR #7", at };
  const ended: RunEvent = { kind: "run-ended", exitCode: 1, lines: ["Run r1: 2 ticket(s) taken", "  #1    merged      PR #7", "  #3    handed off  at verify", "Done: 1 merged, 1 handed off."], at };

  it("tells every hand-off and the summary by default; merges stay quiet", () => {
    assert.equal(noticeFor(handoff, "handoffs", "demo/shop")?.kind, "handed-off");
    assert.match(noticeFor(handoff, "handoffs", "demo/shop")?.message ?? "", /demo\/shop#3 was handed off to a person \(at verify: 1 of 2 criteria unmet\)/);
    assert.equal(noticeFor(merged, "handoffs", "demo/shop"), null);
    const summary = noticeFor(ended, "handoffs", "demo/shop");
    assert.equal(summary?.severity, "warning");
    assert.equal(summary?.message, "Ticket Runner: Done: 1 merged, 1 handed off. #1 merged PR #7 · #3 handed off at verify");
  });

  it("tells merges only with 'all', and nothing with 'none'", () => {
    assert.equal(noticeFor(merged, "all", "demo/shop")?.kind, "merged");
    for (const e of [handoff, merged, ended]) assert.equal(noticeFor(e, "none", "demo/shop"), null);
  });

  it("never notifies for Stage events", () => {
    assert.equal(noticeFor({ kind: "stage-ended", lane: 0, ticket: 1, stage: "implement", outcome: "✅", turns: 3, durationMs: 10, at }, "all", "x/y"), null);
  });
});

describe("the first Start in a workspace", () => {
  it("names the repository, the lanes and the agent, and what a Run does", () => {
    const q = startQuestion({ repo: "demo/shop", lanes: 2, agent: "demo" }, "ready-for-agent", null);
    assert.equal(q.message, "Start a Run on demo/shop with 2 lanes and the demo agent?");
    assert.match(q.detail, /tickets labelled ready-for-agent/);
    assert.match(q.detail, /kills the Run/);
    assert.equal(q.confirm, "Start");
    assert.match(startQuestion({ repo: "a/b", lanes: 1, agent: "claude" }, "r", [7]).detail, /ticket #7/);
  });

  it("is asked again when the repository, the lanes or the agent change", () => {
    const c = { repo: "demo/shop", lanes: 2, agent: "demo" };
    assert.ok(consentCovers({ ...c }, c));
    assert.ok(!consentCovers(undefined, c));
    assert.ok(!consentCovers({ ...c, lanes: 3 }, c));
    assert.ok(!consentCovers({ ...c, agent: "claude" }, c));
    assert.ok(!consentCovers({ ...c, repo: "demo/other" }, c));
  });
});

describe("which ticket a command names", () => {
  it("reads board rows, links, tests' numbers and nothing else", () => {
    assert.equal(ticketFromArgs([{ kind: "ticket", id: "x", row: { number: 42, issueUrl: "u" } }]), 42);
    assert.equal(ticketFromArgs([[42]]), 42);
    assert.equal(ticketFromArgs([42]), 42);
    assert.equal(ticketFromArgs(["#42"]), 42);
    assert.equal(ticketFromArgs([{ ticket: 9 }]), 9);
    for (const bad of [undefined, 0, -1, 1.5, "x", "#", {}, { kind: "section" }, null]) assert.equal(ticketFromArgs([bad]), undefined, String(bad));
    assert.deepEqual(rowFromArgs([{ row: { number: 1, issueUrl: "https://x/1", worktree: "/w", fullTitle: "T" } }]), { issueUrl: "https://x/1", leaseUrl: null, worktree: "/w", title: "T" });
    assert.deepEqual(rowFromArgs([7]), {});
  });
});
