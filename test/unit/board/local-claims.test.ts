import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fsLocalFiles } from "../../../src/adapters/fs-run-root";
import { readLocalClaims } from "../../../src/core/board/local-claims";
import type { LocalRun } from "../../../src/ports/run-root";
import { local } from "./board-fixtures";

const repo = { owner: "acme", repo: "shop" };

describe("board: local claims from the run root", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "board-runroot-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const runRoot = (runs: LocalRun[]) => ({ list: async () => runs });

  it("adds liveness, the worktree when it exists, and transcripts", async () => {
    const worktree = join(root, "wt");
    mkdirSync(worktree);
    const dir4 = join(root, "issue-4");
    mkdirSync(join(dir4, "logs"), { recursive: true });
    writeFileSync(join(dir4, "logs", "implement.transcript.jsonl"), "{}\n");
    const runs: LocalRun[] = [
      { ticket: 3, dir: join(root, "issue-3"), read: { kind: "ok", run: { ...local(3).run, worktree } } },
      { ticket: 4, dir: dir4, read: { kind: "ok", run: { ...local(4).run, pid: 99, worktree: join(root, "gone") } } },
    ];
    const claims = await readLocalClaims({ runRoot: runRoot(runs), files: fsLocalFiles, repo, isAlive: async (r) => r.pid === 4242 });
    assert.deepEqual(
      claims.map((c) => [c.issue, c.alive, c.worktree, c.hasTranscript]),
      [
        [3, true, worktree, true],
        [4, false, null, true],
      ],
    );
  });

  it("skips, with a reason, what is not a run of this ticket on this Target", async () => {
    const runs: LocalRun[] = [
      { ticket: 5, dir: "/r/issue-5", read: { kind: "invalid", reason: "not JSON" } },
      { ticket: 7, dir: "/r/issue-7", read: { kind: "ok", run: local(8).run } },
      { ticket: 9, dir: "/r/issue-9", read: { kind: "ok", run: { ...local(9).run, repo: "other/repo" } } },
      { ticket: 10, dir: "/r/issue-10", read: { kind: "none" } },
    ];
    const skipped: string[] = [];
    const claims = await readLocalClaims({
      runRoot: runRoot(runs),
      files: fsLocalFiles,
      repo,
      isAlive: async () => {
        throw new Error("no procfs");
      },
      onSkip: (d, r) => skipped.push(`${d}: ${r}`),
    });
    assert.deepEqual(claims, []);
    assert.deepEqual(skipped, ["/r/issue-5: not JSON", "/r/issue-7: run.json names issue #8, not #7", "/r/issue-9: run.json names other/repo, not acme/shop"]);
  });
});
