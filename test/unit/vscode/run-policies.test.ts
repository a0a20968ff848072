import * as assert from "node:assert/strict";
import type { RunEvent } from "../../../src/core/run/run-events";
import { noticeFor } from "../../../src/vscode/run/notification-policy";
import { configSchema } from "../../../src/core/schemas/config";
import { agentCommandLine, consentCovers, consentKey, startQuestion, withApproval } from "../../../src/vscode/run/start-confirmation";
import { rowFromArgs, ticketFromArgs } from "../../../src/vscode/run/ticket-args";
import { readFileSync } from "node:fs";
import { asWorktreeSetting, DEFAULT_WORKTREE_SETTING, planWorktreeFolder, worktreeFolderName } from "../../../src/vscode/run/worktree-policy";

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

  it("adds none during a Run unless asked (ADR 0265): unset or unknown reads as off, and the manifest agrees", () => {
    assert.equal(asWorktreeSetting(undefined), "off");
    assert.equal(asWorktreeSetting("sometimes"), "off");
    assert.equal(asWorktreeSetting("add-and-keep"), "add-and-keep");
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { contributes: { configuration: { properties: Record<string, { default?: unknown }> } } };
    assert.equal(pkg.contributes.configuration.properties["ticketRunner.worktreeFolders"]?.default, DEFAULT_WORKTREE_SETTING);
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
  const ended: RunEvent = {
    kind: "run-ended",
    exitCode: 1,
    lines: ["Run r1: 2 ticket(s) taken", "  #1    merged      PR #7", "  #3    handed off  at verify", "Done: 1 merged, 1 handed off."],
    at,
  };

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
  const agent = configSchema.parse({}).agent;
  const consent = (over: Partial<typeof agent> = {}, repo = "demo/shop", lanes = 2) => ({
    repo,
    lanes,
    agent: "demo",
    commandLine: agentCommandLine({ ...agent, kind: "demo", ...over }),
  });

  it("names the repository, the lanes, the agent, its exact command line, and what a Run does", () => {
    const q = startQuestion(consent(), "ready-for-agent", null);
    assert.equal(q.message, "Start a Run on demo/shop with 2 lanes and the demo agent?");
    assert.match(q.detail, /tickets labelled ready-for-agent/);
    assert.match(q.detail, /kills the Run/);
    assert.match(
      q.detail,
      /The agent runs: the scripted demo agent \(from the PATH\); permission mode acceptEdits, model the agent's default, without your GitHub token\./,
    );
    assert.equal(q.confirm, "Start");
    assert.match(startQuestion(consent(), "r", [7]).detail, /ticket #7/);
    const custom = startQuestion(
      consent({ kind: "command", command: ["/opt/my agent", "--fast"], args: ["-c", "x=1"], model: "big", passGitHubToken: true }),
      "r",
      null,
    );
    assert.match(custom.detail, /The agent runs: '\/opt\/my agent' --fast … -c x=1; permission mode acceptEdits, model big, WITH your GitHub token\./);
  });

  it("is asked again when the repository, the lanes or anything on the agent's command line differ from an approval", () => {
    // Before ADR 0230 only the agent's name was compared: each of these ran without a question.
    const approved = consent({ kind: "claude" });
    const stored = withApproval(undefined, approved);
    assert.ok(consentCovers(stored, consent({ kind: "claude" })), "the same command line is not asked twice");
    assert.ok(!consentCovers(undefined, approved));
    assert.ok(!consentCovers({ repo: "demo/shop", lanes: 2, agent: "demo" }, approved), "the old single approval approves nothing");
    const changed: [string, ReturnType<typeof consent>][] = [
      ["lanes", consent({ kind: "claude" }, "demo/shop", 3)],
      ["repository", consent({ kind: "claude" }, "demo/other")],
      ["kind", consent({ kind: "codex" })],
      ["program", consent({ kind: "claude", command: ["/tmp/evil"] })],
      ["arguments", consent({ kind: "claude", args: ["--dangerously-skip-permissions"] })],
      ["model", consent({ kind: "claude", model: "other" })],
      ["permission mode", consent({ kind: "claude", permissionMode: "bypassPermissions" })],
      ["token", consent({ kind: "claude", passGitHubToken: true })],
    ];
    for (const [what, c] of changed) assert.ok(!consentCovers(stored, c), `a different ${what} is asked again`);
    const program = (argv: string[]) => consent({ kind: "command", command: argv });
    const one = withApproval(undefined, program(["my-agent", "--safe"]));
    assert.ok(!consentCovers(one, program(["my-agent", "--unsafe"])), "the same program with other arguments is asked again");
    assert.ok(!consentCovers(one, program(["my-agent", "--safe", "--more"])));
  });

  it("keeps each approval, so going back to an approved command line does not ask again", () => {
    const a = consent({ model: "a" });
    const b = consent({ model: "b" });
    const both = withApproval(withApproval(undefined, a), b);
    assert.ok(consentCovers(both, a) && consentCovers(both, b));
    assert.deepEqual(withApproval(both, a), [consentKey(b), consentKey(a)], "an approval is kept once, newest last");
    let many: string[] = [];
    for (let i = 0; i < 30; i++) many = withApproval(many, consent({ model: `m${i}` }));
    assert.equal(many.length, 20);
    assert.ok(consentCovers(many, consent({ model: "m29" })) && !consentCovers(many, consent({ model: "m0" })));
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
    assert.deepEqual(rowFromArgs([{ row: { number: 1, issueUrl: "https://x/1", worktree: "/w", fullTitle: "T" } }]), {
      issueUrl: "https://x/1",
      leaseUrl: null,
      worktree: "/w",
      title: "T",
    });
    assert.deepEqual(rowFromArgs([7]), {});
  });
});
