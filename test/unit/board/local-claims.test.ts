import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLocalClaims } from "../../../src/core/board/local-claims";
import { local } from "./board-fixtures";

describe("board: local claims from the run root", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "board-runroot-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function write(dir: string, content: string): void {
    mkdirSync(join(root, "acme__shop", dir), { recursive: true });
    writeFileSync(join(root, "acme__shop", dir, "run.json"), content);
  }

  it("reads each issue's run.json, checks liveness, and finds worktrees and transcripts", async () => {
    const worktree = join(root, "wt");
    mkdirSync(worktree);
    write("issue-3", JSON.stringify({ ...local(3).run, worktree }));
    write("issue-4", JSON.stringify({ ...local(4).run, pid: 99, worktree: join(root, "gone") }));
    mkdirSync(join(root, "acme__shop", "issue-4", "logs"));
    writeFileSync(join(root, "acme__shop", "issue-4", "logs", "implement.transcript.jsonl"), "{}\n");
    const claims = await readLocalClaims({ runRoot: root, owner: "acme", repo: "shop", isAlive: async (r) => r.pid === 4242 });
    claims.sort((a, b) => a.issue - b.issue);
    assert.deepEqual(
      claims.map((c) => [c.issue, c.alive, c.worktree, c.hasTranscript]),
      [
        [3, true, worktree, true],
        [4, false, null, true],
      ],
    );
  });

  it("skips, with a reason, what is not a run.json for this Target", async () => {
    write("issue-5", "{ half written");
    write("issue-6", JSON.stringify({ version: 1 }));
    write("issue-7", JSON.stringify({ ...local(8).run }));
    write("issue-9", JSON.stringify({ ...local(9).run, repo: "other/repo" }));
    mkdirSync(join(root, "acme__shop", "issue-10")); // released: run.json moved aside
    const skipped: string[] = [];
    const claims = await readLocalClaims({ runRoot: root, owner: "acme", repo: "shop", isAlive: async () => true, onSkip: (p, r) => skipped.push(`${p.split("/").at(-2)}: ${r}`) });
    assert.deepEqual(claims, []);
    assert.equal(skipped.length, 4);
    assert.match(skipped.join("\n"), /issue-5: not JSON/);
    assert.match(skipped.join("\n"), /issue-7: names issue #8/);
    assert.match(skipped.join("\n"), /issue-9: names other\/repo/);
  });

  it("is empty when the run root does not exist", async () => {
    assert.deepEqual(await readLocalClaims({ runRoot: join(root, "nope"), owner: "acme", repo: "shop", isAlive: async () => true }), []);
  });
});
