/**
 * The git directory's small files read in place (ADR 0493): a regular file's bytes; anything else,
 * or nothing, reads as absent, as a failed readFile did. A FIFO where an object's name is (an agent
 * writes into the clone's object store) must not stop the Run's event loop: its open would wait for
 * a writer, so it is opened non-blocking and refused as not a regular file.
 */
import { strict as assert } from "node:assert";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gitPathExists, readGitFile, readGitText } from "../../../src/adapters/git/git-dir-files";

describe("workspace: the git directory's small files read in place (ADR 0493)", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "git-dir-files-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a regular file's bytes and text, through a link too", () => {
    writeFileSync(join(dir, "ref"), "0123456789abcdef0123456789abcdef01234567\n");
    symlinkSync(join(dir, "ref"), join(dir, "link"));
    assert.deepEqual(readGitFile(join(dir, "ref")), Buffer.from("0123456789abcdef0123456789abcdef01234567\n"));
    assert.equal(readGitText(join(dir, "link")), "0123456789abcdef0123456789abcdef01234567\n");
    assert.equal(gitPathExists(join(dir, "link")), true);
  });

  it("reads nothing, a folder, a dangling link and a path through a file as absent", () => {
    mkdirSync(join(dir, "folder"));
    writeFileSync(join(dir, "file"), "x");
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
    for (const path of ["missing", "folder", "dangling", "file/below"].map((p) => join(dir, p))) assert.equal(readGitFile(path), null, path);
    assert.equal(readGitText(join(dir, "missing")), null);
    assert.equal(gitPathExists(join(dir, "missing")), false);
    assert.equal(gitPathExists(join(dir, "dangling")), false);
    assert.equal(gitPathExists(join(dir, "file", "below")), false);
    assert.equal(gitPathExists(join(dir, "folder")), true);
  });

  it("reads a FIFO as absent at once, with no writer on its other end", function () {
    this.timeout(60_000);
    const fifo = join(dir, "ab", "cdef0123456789abcdef0123456789abcdef01");
    mkdirSync(join(dir, "ab"));
    execFileSync("mkfifo", [fifo]);
    // In a child process with a time limit: a blocking open would never return, and would stop this one too.
    const module = resolve(__dirname, "../../../src/adapters/git/git-dir-files.ts");
    const script = `const f = require(${JSON.stringify(module)}); console.log(JSON.stringify([f.readGitFile(process.argv[1]), f.readGitText(process.argv[1])]));`;
    const r = spawnSync(process.execPath, ["--require", "tsx/cjs", "-e", script, fifo], { encoding: "utf8", timeout: 30_000 });
    assert.equal(r.error, undefined, "the read did not return");
    assert.equal(r.stdout.trim(), "[null,null]", r.stderr);
  });
});
