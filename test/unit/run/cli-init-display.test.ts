import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initTarget } from "../../../src/app/init-target";
import { RunDisplay } from "../../../src/cli/run-display";
import { Refusal } from "../../../src/core/errors";
import { FakeGitHub } from "../../fakes/fake-tracker";

describe("ticket-runner init", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "tr-init-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("creates the labels, the config (Checks from package.json) and the .gitignore lines; the second time does nothing", async () => {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "node --test", typecheck: "tsc" } }));
    writeFileSync(join(dir, ".gitignore"), "node_modules");
    const gh = new FakeGitHub({ owner: "acme", repo: "widgets" });
    gh.addUser("bot", "write");
    const tracker = gh.client("bot");
    const first = await initTarget(dir, tracker);
    assert.equal(first.changed, true);
    assert.match(first.lines.join("\n"), /ticket-runner\.json: created, with the Checks `npm test` and `npm run typecheck`/);
    assert.match(first.lines.join("\n"), /Labels: created ready-for-agent, in-progress, ready-for-human\./);
    assert.equal(readFileSync(join(dir, ".gitignore"), "utf8"), "node_modules\n.worktrees/\n.ticket-runner/\n");
    assert.deepEqual(JSON.parse(readFileSync(join(dir, "ticket-runner.json"), "utf8")).checks, [
      ["npm", "test"],
      ["npm", "run", "typecheck"],
    ]);

    const second = await initTarget(dir, tracker);
    assert.equal(second.changed, false);
    assert.equal(second.lines.at(-1), "Nothing to do: this Target is already set up.");
    assert.equal(readFileSync(join(dir, ".gitignore"), "utf8"), "node_modules\n.worktrees/\n.ticket-runner/\n");
  });

  it("an existing config with an unknown key is refused, naming the key", async () => {
    writeFileSync(join(dir, "ticket-runner.json"), JSON.stringify({ lanse: 2 }));
    await assert.rejects(initTarget(dir, null), (e: unknown) => e instanceof Refusal && /unknown key "lanse"/.test(e.message));
  });
});

describe("run display", () => {
  const at = "2026-09-17T09:00:05.000Z";
  it("plain lines when not a terminal", () => {
    const lines: string[] = [];
    const d = new RunDisplay({ line: (l) => lines.push(l), raw: () => assert.fail("no raw output off a terminal") }, false);
    d.onEvent({ kind: "run-started", runId: "r1", lanes: 2, narrowedTo: [4, 9], at });
    d.onEvent({ kind: "lane-started", lane: 0, ticket: 4, title: "Spin", resumed: true, at });
    d.onEvent({ kind: "transcript", lane: 0, ticket: 4, stage: "implement", event: { kind: "text", text: "hi" } });
    d.onEvent({ kind: "stage-ended", lane: 0, ticket: 4, stage: "implement", outcome: "✅ done", turns: 3, durationMs: 62_000, at });
    d.onEvent({ kind: "ticket-ended", lane: 0, ticket: 4, ending: "merged", line: "PR #5", at });
    assert.deepEqual(lines, [
      "Run r1: 2 lane(s), tickets #4 #9",
      "[09:00:05] lane 1: #4 Spin (resumed)",
      "[09:00:05] #4 implement: ✅ done · 3 turns · 1m 02s",
      "[09:00:05] #4 merged: PR #5",
    ]);
  });

  it("one line per Lane, redrawn in place, on a terminal", () => {
    let screen = "";
    const d = new RunDisplay({ line: (l) => (screen += `${l}\n`), raw: (t) => (screen += t) }, true, 80, () => Date.parse(at) + 10_000);
    d.onEvent({ kind: "lane-started", lane: 0, ticket: 4, title: "Spin", resumed: false, at });
    d.onEvent({ kind: "lane-started", lane: 1, ticket: 9, title: "Stop", resumed: false, at });
    d.onEvent({ kind: "stage-started", lane: 1, ticket: 9, stage: "verify", at });
    assert.match(screen, /lane 1 {2}#4 Spin {2}setup 10 s\nlane 2 {2}#9 Stop {2}verify 10 s\n$/);
    assert.ok(screen.includes("\x1b[2A\x1b[0J"), "the two Lane lines are erased before the redraw");
  });
});
