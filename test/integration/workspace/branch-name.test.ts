import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { isBranchNameGitTakes } from "../../../src/adapters/git/branch-name";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, gitEnv, makeRemote } from "../../support/git-fixtures";

/** What the old check said, with the installed git: `check-ref-format --branch` accepts it and prints it back unchanged. */
function gitTakes(cwd: string, name: string): Promise<boolean> {
  return new Promise((done) => {
    execFile("git", ["check-ref-format", "--branch", name], { cwd, env: gitEnv() }, (err, stdout) => {
      done(!err && !name.startsWith("-") && String(stdout).trim() === name);
    });
  });
}

/** The pieces git's rules turn on, and plain ones, joined at random (seeded, so a failure repeats). */
const PIECES = [
  "a",
  "agent",
  "7-fix",
  "x",
  "é",
  "ü/",
  "/",
  "//",
  ".",
  "..",
  ".lock",
  "lock",
  "-",
  "@",
  "@{",
  "{",
  "}",
  "@{-1}",
  "@{u}",
  "~",
  "^",
  ":",
  "?",
  "*",
  "[",
  "]",
  "\\",
  " ",
  "\t",
  "\u0001",
  "\u007f",
  "HEAD",
  "head",
  "refs",
  "heads/",
  "!",
  "#",
  "$",
  "%",
  "&",
  "(",
  ")",
  "+",
  ",",
  ";",
  "<",
  "=",
  ">",
  "`",
  "|",
  "'",
  '"',
  "\u00a0",
  "\u2028",
  "\ufeff",
  "日本",
];

const FIXED = [
  "agent/12-add-the-thing",
  "main",
  "HEAD",
  "-x",
  "@",
  "@{-1}",
  "main@{upstream}",
  "a..b",
  "a/.b",
  "a/b.",
  "a.lock",
  "a.lock/b",
  "a/b.lock",
  "a//b",
  "/a",
  "a/",
  "a b",
  "a~1",
  "a^",
  "a:b",
  "a?",
  "a*",
  "a[",
  "a\\b",
  "a@b",
  "a@{b",
  "a{b}",
  "a.b",
  ".a",
  "x/..",
  "x/.",
  "é/ü",
  "@/x",
  "x/@",
  "x/@{",
  "lock.",
  "a/lock",
  "a.loc",
  "a.LOCK",
  "HEAD/x",
  "x/HEAD",
  "refs/heads/x",
  "-",
  "--",
  "a-",
  "a\u007fb",
  "a\u0001",
];

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("workspace: branch names decided in-process, as git decides them (ADR 0477)", () => {
  let fx: RemoteFixture;
  let root: string;

  before(async () => {
    fx = await makeRemote();
    root = await fx.clone("target");
    // A branch checked out before, so `@{-1}` expands to a real name (and is refused for not being itself).
    await git(root, ["checkout", "-q", "-b", "before"]);
    await git(root, ["checkout", "-q", "main"]);
  });
  after(async () => {
    await fx.cleanup();
  });

  it("agrees with `git check-ref-format --branch` on hundreds of names, the awkward ones among them", async function () {
    this.timeout(300_000);
    const random = seeded(477);
    const names = new Set(FIXED);
    while (names.size < FIXED.length + 400) {
      const length = 1 + Math.floor(random() * 4);
      names.add(Array.from({ length }, () => PIECES[Math.floor(random() * PIECES.length)]).join(""));
    }
    const all = [...names].filter((n) => !n.includes("\u0000"));
    const wrong: string[] = [];
    let taken = 0;
    // A few at a time: one git per name, on a machine shared with others.
    for (let i = 0; i < all.length; i += 8) {
      const batch = all.slice(i, i + 8);
      const said = await Promise.all(batch.map((n) => gitTakes(root, n)));
      batch.forEach((name, j) => {
        if (said[j]) taken++;
        if (said[j] !== isBranchNameGitTakes(name)) wrong.push(`${JSON.stringify(name)}: git ${said[j] ? "takes" : "refuses"} it`);
      });
    }
    assert.deepEqual(wrong, []);
    // Both answers were given often: the comparison was not one-sided.
    assert.ok(taken > 50 && taken < all.length - 50, `git took ${taken} of ${all.length}`);
  });
});
