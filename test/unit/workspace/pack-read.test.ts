/**
 * Objects read from a clone's packs in this process (ADR 0501), against real packs git wrote:
 * every object of a repository repacked with deltas (OFS_DELTA chains, and REF_DELTA where the
 * pack says so) reads as `git cat-file` gives it; what is not there, or not readable, is null.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { readPacked } from "../../../src/adapters/git/pack-read";
import { commitFiles, git, gitEnv, makeTempDir } from "../../support/git-fixtures";

/** `git cat-file <type> <id>` as bytes. */
function catFile(repo: string, type: string, id: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    execFile("git", ["cat-file", type, id], { cwd: repo, env: gitEnv(), encoding: "buffer", maxBuffer: 1 << 26 }, (err, out) =>
      err ? reject(err) : resolve(out),
    ),
  );
}

describe("workspace: objects read from a clone's packs (ADR 0501)", function () {
  this.timeout(30_000);
  let dir: string;
  let repo: string;

  before(async () => {
    dir = await makeTempDir("tr-pack-read-");
    repo = join(dir, "repo");
    await git(dir, ["init", "-q", "--initial-branch=main", repo]);
    // Files that change a little each commit: git deltifies their versions against each other.
    let text = Array.from({ length: 300 }, (_, i) => `line ${i} of a file that changes a little\n`).join("");
    for (let c = 0; c < 12; c++) {
      text = text.replace(`line ${c * 7} `, `line ${c * 7} changed in ${c} `);
      await commitFiles(repo, { "a.txt": text, "src/b.txt": text.split("").reverse().join(""), [`src/deep/c${c % 3}.txt`]: `${text}${c}\n` }, `commit ${c}`);
    }
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function allObjects(): Promise<[string, string][]> {
    const listed = await git(repo, ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"]);
    return listed.split("\n").map((l) => l.split(" ") as [string, string]);
  }

  for (const [name, repack] of [
    ["OFS_DELTA chains", ["repack", "-a", "-d", "-f", "-q", "--depth=20", "--window=20"]],
    ["REF_DELTA (no delta base offsets)", ["-c", "repack.useDeltaBaseOffset=false", "repack", "-a", "-d", "-f", "-q", "--depth=20", "--window=20"]],
  ] as const) {
    it(`every object of a pack with ${name} reads as git reads it`, async () => {
      await git(repo, [...repack]);
      const packDir = join(repo, ".git", "objects", "pack");
      assert.equal(readdirSync(packDir).filter((n) => n.endsWith(".idx")).length, 1);
      const verify = await git(repo, [
        "verify-pack",
        "-v",
        join(
          packDir,
          readdirSync(packDir).find((n) => n.endsWith(".idx"))!,
        ),
      ]);
      assert.match(verify, /chain length = [2-9]/, "the pack has delta chains deeper than one");
      const objects = await allObjects();
      assert.ok(objects.length > 40);
      for (const [id, type] of objects) {
        const read = readPacked(packDir, id);
        assert.ok(read, `${type} ${id} reads`);
        assert.equal(read.type, type);
        assert.ok(read.body.equals(await catFile(repo, type, id)), `${type} ${id} reads as git's`);
      }
    });
  }

  it("an object no pack has, or a name that is no id, is null", async () => {
    const packDir = join(repo, ".git", "objects", "pack");
    assert.equal(readPacked(packDir, "0".repeat(40)), null);
    assert.equal(readPacked(packDir, "f".repeat(40)), null);
    assert.equal(readPacked(packDir, "HEAD"), null);
    assert.equal(readPacked(join(dir, "no-such-dir"), (await allObjects())[0]![0]), null);
  });
});
