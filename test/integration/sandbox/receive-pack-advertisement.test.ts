/**
 * receive-pack's ref advertisement written by the sandbox (ADR 0474), held byte for byte against
 * `git receive-pack --http-backend-info-refs .` on the same repository after each change: no ref,
 * loose and packed refs (a loose one over its packed value, one deleted from packed-refs), hidden
 * refs with a `!` pattern after them, an annotated tag (not peeled), a symbolic ref, a name outside
 * ASCII, protocol v1, a config change. And what it leaves to receive-pack (null): broken refs, a
 * shallow repository, a symbolic link under refs/; but not what a folder of hidden refs holds, which
 * is not read. Real git, no mocks.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { CommitLookups } from "../../../src/sandbox/commit-lookup";
import { gitEnv } from "../../../src/sandbox/git";
import { ReceivePackAdvertisements } from "../../../src/sandbox/receive-pack-advertisement";
import { bareWithWork } from "./support";
import type { BareWithWork } from "./support";

function receivePack(gitDir: string, gitProtocol?: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    execFile(
      "git",
      ["receive-pack", "--http-backend-info-refs", "."],
      { cwd: gitDir, encoding: "buffer", env: gitEnv(gitProtocol ? { GIT_PROTOCOL: gitProtocol } : {}) },
      (e, out) => (e ? reject(e) : resolve(out)),
    ),
  );
}

describe("sandbox receive-pack advertisement without receive-pack (integration)", function () {
  let repo: BareWithWork;
  let gitDir: string;
  let commits: CommitLookups;
  let ads: ReceivePackAdvertisements;

  before(async () => {
    repo = await bareWithWork("sbx-rp-ad-");
    gitDir = repo.gitDir;
    commits = new CommitLookups();
    ads = new ReceivePackAdvertisements(commits);
  });

  after(async () => {
    await commits.stop();
    await repo.remove();
  });

  const bare = (...args: string[]): Promise<string> => repo.bare(...args);
  const commit = (message: string): Promise<string> => repo.commit(message);

  async function sameAsReceivePack(gitProtocol?: string): Promise<string> {
    const ours = await ads.advertisement(gitDir, gitProtocol);
    const theirs = await receivePack(gitDir, gitProtocol);
    assert.ok(ours, "written without receive-pack");
    assert.equal(ours.toString("latin1"), theirs.toString("latin1"));
    return ours.toString("latin1");
  }

  it("no ref: the capabilities on a line of their own, as receive-pack writes them", async () => {
    assert.match(await sameAsReceivePack(), /^00[0-9a-f]{2}0{40} capabilities\^\{\}\0report-status /);
    await sameAsReceivePack("version=1");
  });

  it("loose and packed refs, hidden refs, a tag, a symbolic ref, a name outside ASCII: receive-pack's bytes; broken refs left to it", async () => {
    const first = await commit("first");
    const second = await commit("second");
    await bare("update-ref", "refs/heads/feature", first);
    await bare("update-ref", "refs/heads/gone", first);
    await bare("update-ref", "refs/pull/1/head", first);
    await bare("update-ref", "refs/pull/2/head", second);
    await bare("tag", "-a", "-m", "v1", "v1", first);
    await bare("update-ref", "refs/heads/café", second);
    await bare("update-ref", "refs/heads/cafe-x", second);
    await sameAsReceivePack();
    await bare("pack-refs", "--all");
    await sameAsReceivePack();
    // A loose value over a packed one, and a ref deleted from packed-refs.
    await bare("update-ref", "refs/heads/feature", second);
    await bare("update-ref", "-d", "refs/heads/gone");
    await bare("symbolic-ref", "refs/heads/alias", "refs/heads/main");
    const text = await sameAsReceivePack();
    assert.ok(!text.includes("refs/pull/"), "refs/pull is hidden (receive.hideRefs)");
    assert.ok(text.includes(`${second} refs/heads/alias`), "a symbolic ref: its target's commit");
    // Broken refs: receive-pack shows one whose object is missing, a null id for one it cannot
    // read, and leaves a dangling symbolic ref out; the sandbox leaves all three to it.
    const broken = path.join(gitDir, "refs", "heads", "broken");
    for (const content of [`${"1234567890".repeat(4)}\n`, "garbage\n", "ref: refs/heads/nothing\n"]) {
      await fsp.writeFile(broken, content);
      assert.equal(await ads.advertisement(gitDir, undefined), null, content);
    }
    await fsp.rm(broken);
    await sameAsReceivePack("version=1");
    await sameAsReceivePack("version=2");
  });

  it("a change of config is read: a hidden ref shown again by a `!` pattern after it", async () => {
    await bare("config", "--add", "transfer.hideRefs", "!refs/pull/2/");
    const text = await sameAsReceivePack();
    assert.ok(text.includes("refs/pull/2/head") && !text.includes("refs/pull/1/head"));
    await bare("config", "--unset-all", "transfer.hideRefs");
    await sameAsReceivePack();
  });

  it("a folder of hidden refs is not read: what it holds, broken or not, is receive-pack's answer without it; a `!` inside it reads it again", async () => {
    // Under refs/pull/ (receive.hideRefs): a ref that is garbage, one whose object is missing, a symbolic link.
    const pull = path.join(gitDir, "refs", "pull", "3");
    await fsp.mkdir(pull, { recursive: true });
    await fsp.writeFile(path.join(pull, "head"), "garbage\n");
    await fsp.writeFile(path.join(pull, "merge"), `${"1234567890".repeat(4)}\n`);
    await fsp.symlink(path.join(gitDir, "refs", "heads", "main"), path.join(pull, "link"));
    const text = await sameAsReceivePack();
    assert.ok(!text.includes("refs/pull/"));
    // A pattern naming a ref inside the folder may show it: the folder is read, and its broken refs left to receive-pack.
    await bare("config", "--add", "transfer.hideRefs", "!refs/pull/3/head");
    assert.equal(await ads.advertisement(gitDir, undefined), null);
    await bare("config", "--unset-all", "transfer.hideRefs");
    await fsp.rm(pull, { recursive: true });
    await sameAsReceivePack();
  });

  it("leaves to receive-pack what it does not model: a shallow repository, a symbolic link under refs/", async () => {
    await fsp.symlink(path.join(gitDir, "refs", "heads", "main"), path.join(gitDir, "refs", "heads", "link"));
    assert.equal(await ads.advertisement(gitDir, undefined), null);
    await fsp.rm(path.join(gitDir, "refs", "heads", "link"));
    await fsp.writeFile(path.join(gitDir, "shallow"), `${await bare("rev-parse", "refs/heads/main")}\n`);
    assert.equal(await ads.advertisement(gitDir, undefined), null);
    await fsp.rm(path.join(gitDir, "shallow"));
    await sameAsReceivePack();
  });
});
