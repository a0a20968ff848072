/**
 * The kept-branch note `release` gives (ADR 0121), shared by the CLI (prints `text`) and VS Code's
 * Release (shows `text`, and a Copy Command button per entry of `commands`).
 */
import assert from "node:assert/strict";
import { keptBranchGone, keptUnlooked, keptWords, type KeptBranchLook } from "../../../src/core/claims/kept-words";

const BRANCH = "agent/5-add-a-thing";
const WT = "/src/widgets/.worktrees/ticket-5";
const DROP = `git -C /src/widgets worktree remove ${WT} && git -C /src/widgets branch -D ${BRANCH}`;
const REMOTE = `git -C /src/widgets push origin --delete ${BRANCH}`;

function look(over: Partial<KeptBranchLook> = {}): KeptBranchLook {
  return { left: { worktree: WT }, notReusable: null, drop: DROP, dropRemote: null, ...over };
}

describe("claims: the kept-branch note of release (both front doors)", () => {
  it("nothing beyond the base: a Run here starts on them; the one command removes them anyway", () => {
    const note = keptWords(BRANCH, look());
    assert.equal(
      note.text,
      `Kept the worktree ${WT} and the branch ${BRANCH} (release deletes nothing). They hold nothing beyond the base, so a Run in this clone starts on them. To remove them anyway: \`${DROP}\`.`,
    );
    assert.deepEqual(note.commands, [DROP]);
  });

  it("work on it and a remote copy: says why a Run hands it off, and both commands, in the order the text names them", () => {
    const note = keptWords(BRANCH, look({ notReusable: { why: "it holds 2 commit(s) that are not on the base" }, dropRemote: REMOTE }));
    assert.match(
      note.text,
      /: it holds 2 commit\(s\) that are not on the base\. A Run in this clone will not start on them: it hands the ticket to a person at setup\./,
    );
    assert.deepEqual(note.commands, [DROP, REMOTE]);
    assert.ok(note.text.indexOf(`\`${DROP}\``) < note.text.indexOf(`\`${REMOTE}\``), note.text);
  });

  it("every command offered is one the text shows, backticked, so a Copy Command copies what was read", () => {
    const notes = [
      keptWords(BRANCH, look()),
      keptWords(BRANCH, look({ left: { worktree: null }, notReusable: { why: "x" }, dropRemote: REMOTE })),
      keptUnlooked(BRANCH, WT),
      keptBranchGone(BRANCH, "/src/widgets"),
    ];
    for (const note of notes) for (const c of note.commands) assert.ok(note.text.includes(`\`${c}\``), `${c} in ${note.text}`);
    assert.equal(keptWords(BRANCH, look({ left: { worktree: null } })).text.startsWith(`Kept the branch ${BRANCH} (`), true);
  });

  it("no look (clone not here, git failed): what was kept, no verdict and no command", () => {
    assert.deepEqual(keptUnlooked(BRANCH, WT), { text: `Kept the worktree ${WT} and the branch ${BRANCH} (release deletes nothing).`, commands: [] });
    assert.deepEqual(keptUnlooked(BRANCH, null).commands, []);
  });
});
