/**
 * The record objects the product writes itself (ADR 0261) must be the very objects git would
 * write: the same names as `git hash-object -w`, `git mktree` and `git commit-tree` give for the
 * same content, readable by git, and passing `git fsck` (sha1 and sha256 repositories).
 */
import { strict as assert } from "node:assert";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { writeLooseObjectFile } from "../../../src/adapters/git/loose-object-file";
import { writeBlobObject, writeCommitObject, writeTreeObject } from "../../../src/adapters/git/loose-objects";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import { git, makeTempDir } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

async function repo(format: "sha1" | "sha256"): Promise<RepoContext> {
  const root = await makeTempDir(`tr-loose-${format}-`);
  await git(root, ["init", "--quiet", `--object-format=${format}`]);
  const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
  return { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin", url: root }) };
}

for (const format of ["sha1", "sha256"] as const) {
  describe(`workspace: record objects written without git (${format})`, () => {
    it("a blob, a nested tree and a commit have git's own names, and git reads and checks them", async () => {
      const ctx = await repo(format);
      const text = '{\n  "ticket": 8\n}\n';
      const blob = await writeBlobObject(ctx, text);
      assert.equal(blob, await ctx.git.text(["hash-object", "--stdin"], { cwd: ctx.root, input: text }));
      assert.equal(await git(ctx.root, ["cat-file", "-p", blob]), text.replace(/\n$/, ""));
      const other = await writeBlobObject(ctx, Buffer.from([0, 1, 2, 255]));
      // Names that sort differently as a file and as a directory ("a.b" < "a/" < "a0"), and nesting.
      const files = new Map([
        ["ticket-8.json", blob],
        ["a.b", other],
        ["a/x.json", blob],
        ["a0", other],
        ["ticket-8/run-1/implement.jsonl", other],
        ["ticket-8/run-1/verify.jsonl", blob],
      ]);
      const tree = await writeTreeObject(ctx, files);
      // git's own tree of the same files, built in a scratch index.
      const index = `${ctx.root}/.git/scratch-index`;
      const records = [...files].map(([path, sha]) => `100644 blob ${sha}\t${path}`).join("\n");
      await ctx.git.text(["update-index", "--index-info"], { cwd: ctx.root, env: { GIT_INDEX_FILE: index }, input: `${records}\n` });
      assert.equal(tree, await ctx.git.text(["write-tree"], { cwd: ctx.root, env: { GIT_INDEX_FILE: index } }));
      const first = await writeCommitObject(ctx, tree, [], "Ticket #8: claimed (run r1)", new Date("2026-12-01T10:00:00Z"));
      const second = await writeCommitObject(ctx, tree, [first], "Ticket #8: implemented (run r1)\n", new Date("2026-12-01T10:01:00Z"));
      const who = "Ticket Runner <ticket-runner@users.noreply.github.com>";
      const at = (iso: string) => Date.parse(iso) / 1000;
      assert.equal(
        await git(ctx.root, ["log", "--format=%s|%an <%ae>|%at|%cn <%ce>|%ct", second]),
        [
          `Ticket #8: implemented (run r1)|${who}|${at("2026-12-01T10:01:00Z")}|${who}|${at("2026-12-01T10:01:00Z")}`,
          `Ticket #8: claimed (run r1)|${who}|${at("2026-12-01T10:00:00Z")}|${who}|${at("2026-12-01T10:00:00Z")}`,
        ].join("\n"),
      );
      assert.equal(await git(ctx.root, ["rev-parse", `${second}^{tree}`]), tree);
      assert.equal(await git(ctx.root, ["cat-file", "-p", `${second}:ticket-8/run-1/verify.jsonl`]), text.replace(/\n$/, ""));
      await git(ctx.root, ["update-ref", "refs/ticket-runner/state/8", second]);
      await git(ctx.root, ["fsck", "--strict", "--no-dangling"]);
    });

    it("the one writer: an object already there is kept byte for byte, and no temporary file is left", async () => {
      const ctx = await repo(format);
      const objects = join(ctx.root, ".git", "objects");
      const body = Buffer.from("kept\n");
      const id = await writeLooseObjectFile(objects, format, "blob", body);
      assert.equal(id, await ctx.git.text(["hash-object", "--stdin"], { cwd: ctx.root, input: "kept\n" }));
      const file = join(objects, id.slice(0, 2), id.slice(2));
      // Another writer's bytes for the same object (another zlib level): the link refuses, and they stay.
      const theirs = deflateSync(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body]), { level: 9 });
      assert.notDeepEqual(theirs, await readFile(file));
      await rm(file);
      await writeFile(file, theirs, { mode: 0o444 });
      const again = await writeLooseObjectFile(objects, format, "blob", body);
      assert.equal(again, id);
      assert.deepEqual(await readFile(file), theirs);
      assert.deepEqual(
        (await readdir(join(objects, id.slice(0, 2)))).filter((n) => n.startsWith("tmp_obj_")),
        [],
      );
      assert.equal(await git(ctx.root, ["cat-file", "-p", id]), "kept");
    });
  });
}
