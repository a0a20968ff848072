import * as assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRemoteUrls, remoteUrlsFromGitConfig } from "../../../src/adapters/git/remote-urls";

const CONFIG = `[core]
\trepositoryformatversion = 0
\turl = https://not-a-remote.example/x
[remote "origin"]
\turl = git@github.com:acme/shop.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[remote "sandbox"]
\turl = http://127.0.0.1:4010/acme/shop.git
[branch "main"]
\tremote = origin
`;

describe("git remotes (for the 'no GitHub remote' welcome)", () => {
  it("reads only remote sections' urls", () => {
    assert.deepEqual(remoteUrlsFromGitConfig(CONFIG), ["git@github.com:acme/shop.git", "http://127.0.0.1:4010/acme/shop.git"]);
  });

  describe("readRemoteUrls", () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "tr-remote-"))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("reads a clone's .git/config, and a worktree's through its .git file and commondir", async () => {
      const main = join(dir, "main");
      mkdirSync(join(main, ".git", "worktrees", "t1"), { recursive: true });
      writeFileSync(join(main, ".git", "config"), CONFIG);
      writeFileSync(join(main, ".git", "worktrees", "t1", "commondir"), "../..\n");
      const wt = join(dir, "wt");
      mkdirSync(wt);
      writeFileSync(join(wt, ".git"), `gitdir: ${join(main, ".git", "worktrees", "t1")}\n`);
      assert.equal((await readRemoteUrls(main)).length, 2);
      assert.deepEqual(await readRemoteUrls(wt), await readRemoteUrls(main));
    });

    it("is empty for a folder that is not a repository", async () => {
      assert.deepEqual(await readRemoteUrls(dir), []);
    });
  });
});
