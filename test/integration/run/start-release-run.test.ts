/**
 * `ticket-runner start <n>`, then `release <n>`, then `run <n>` in the same clone (ADR 0121):
 * the worktree and branch `start` made hold nothing beyond the base, so the Run starts on them
 * (moved up to the fresh base) and merges, instead of handing the ticket off at setup. With work on
 * them (a commit of their own, or an untracked file) the Run still hands off and the work stays.
 * `release` says which of the two a Run here will do, and the command that removes them.
 * Real CLI processes, real git, the sandbox.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { commitFiles, git } from "../../support/git-fixtures";
import { RunWorld } from "./run-helpers";

const run = promisify(execFile);
const say = (r: { code: number | null; out: string[]; err: string[] }) => `exit ${r.code}\nstdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;

describe("run (integration): start, release, then run in the same clone", function () {
  this.timeout(180_000);
  let w: RunWorld;
  beforeEach(async () => (w = await RunWorld.make()));
  afterEach(async () => w?.dispose());

  /** Moves the base on: a commit pushed to main from another clone (the token sent as a header, never stored). */
  async function moveBase(): Promise<string> {
    const other = await w.cloneAgain("mover");
    const sha = await commitFiles(other, { "NEWS.md": "the base moved on\n" }, "base moves on");
    const basic = Buffer.from(`x-access-token:${w.target.userToken}`).toString("base64");
    await run("git", ["-c", `http.extraHeader=Authorization: Basic ${basic}`, "push", "-q", "origin", "HEAD:main"], {
      cwd: other,
      env: { ...process.env, LC_ALL: "C" },
    });
    return sha;
  }

  async function start(n: number): Promise<{ lane: string; branch: string }> {
    const started = await w.cliDone(["start", String(n)]);
    assert.equal(started.code, 0, say(started));
    const m = /Worktree: (\S+) \(branch (\S+)\)/.exec(started.out.join("\n"));
    assert.ok(m, say(started));
    return { lane: m[1]!, branch: m[2]! };
  }

  it("nothing on the branch beyond the base: release says a Run here starts on it, and the Run merges", async () => {
    const [n] = await w.tickets([w.ticket("greet")]);
    const { lane, branch } = await start(n!);
    const oldTip = await git(w.target.clone, ["rev-parse", branch]);
    const released = await w.cliDone(["release", String(n)]);
    assert.equal(released.code, 0, say(released));
    const text = released.out.join("\n");
    assert.ok(text.includes(`Kept the worktree ${lane} and the branch ${branch} (release deletes nothing)`), say(released));
    assert.match(text, /hold nothing beyond the base, so a Run in this clone starts on them/, say(released));
    assert.ok(text.includes(`\`git -C ${w.target.clone} worktree remove ${lane} && git -C ${w.target.clone} branch -D ${branch}\``), say(released));

    const newBase = await moveBase();
    const r = await w.cliDone(["run", String(n)]);
    assert.equal(r.code, 0, say(r));
    assert.match(r.out.at(-1)!, /^Done: 1 merged\.$/, say(r));
    const issue = await w.issue(n!);
    assert.equal(issue.state, "closed");
    assert.ok(!issue.labelNames.includes("ready-for-human"), issue.labelNames.join(","));
    const [pr] = await w.pulls();
    assert.ok(pr?.merged_at, "the pull request was merged");
    assert.notEqual(oldTip, newBase);
    assert.ok(!existsSync(lane), "the merged Lane's worktree was cleaned up");
  });

  it("a commit of its own on the branch: release says so, the Run hands off at setup, and the commit stays", async () => {
    const [n] = await w.tickets([w.ticket("greet")]);
    const { lane, branch } = await start(n!);
    const mine = await commitFiles(lane, { "notes.txt": "a person's half-done work\n" }, "wip");
    const released = await w.cliDone(["release", String(n)]);
    assert.equal(released.code, 0, say(released));
    const text = released.out.join("\n");
    assert.match(
      text,
      /it holds 1 commit\(s\) that are not on the base, 1 of them on no remote\. A Run in this clone will not start on them: it hands the ticket to a person at setup/,
      say(released),
    );

    const r = await w.cliDone(["run", String(n)]);
    assert.equal(r.code, 1, say(r));
    assert.match(r.out.join("\n"), new RegExp(`#${n} handed-off: at setup`), say(r));
    assert.equal(await git(w.target.clone, ["rev-parse", branch]), mine, "the branch was not moved");
    assert.equal(readFileSync(join(lane, "notes.txt"), "utf8"), "a person's half-done work\n");
    assert.ok((await w.issue(n!)).labelNames.includes("ready-for-human"));
  });

  it("an untracked file in the worktree: the Run hands off at setup and the file stays", async () => {
    const [n] = await w.tickets([w.ticket("greet")]);
    const { lane } = await start(n!);
    writeFileSync(join(lane, "draft.txt"), "not committed yet\n");
    const released = await w.cliDone(["release", String(n)]);
    assert.equal(released.code, 0, say(released));
    assert.match(released.out.join("\n"), /has uncommitted or untracked changes\. A Run in this clone will not start on them/, say(released));
    assert.match(released.out.join("\n"), /worktree remove --force /, say(released));

    const r = await w.cliDone(["run", String(n)]);
    assert.equal(r.code, 1, say(r));
    assert.match(r.out.join("\n"), new RegExp(`#${n} handed-off: at setup`), say(r));
    assert.equal(readFileSync(join(lane, "draft.txt"), "utf8"), "not committed yet\n");
  });
});
