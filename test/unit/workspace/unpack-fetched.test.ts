/**
 * A small fetched pack written by the Run's process (ADR 0501), against real git repositories:
 * packs made by `git pack-objects`, a clone whose objects are loose (as the Runs' clones are once
 * their fetches are small), and `git fsck` as the judge. Taken only when every link is proved; a
 * missing object, a link of the wrong type, a parent outside the whole history (even one the clone
 * has, left by an earlier fetch), a tree at a path no whole commit has: false, and nothing written.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { knowCloneStore } from "../../../src/adapters/git/clone-store";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { unpackFetched } from "../../../src/adapters/git/unpack-fetched";
import { commitFiles, git, gitEnv, makeTempDir } from "../../support/git-fixtures";

/** git with bytes in and out (a pack). */
function gitBytes(cwd: string, args: string[], input: Buffer | string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, env: gitEnv(), stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${args.join(" ")}: ${Buffer.concat(err).toString()}`))));
    child.stdin.end(input);
  });
}

/** A pack of exactly these objects (no walk: what is left out is left out). */
function packOf(repo: string, ids: string[]): Promise<Buffer> {
  return gitBytes(repo, ["pack-objects", "--stdout", "-q"], ids.map((id) => `${id}\n`).join(""));
}

/** The pack a fetch of `want` by a clone that has `have` gets (`--thin`: deltas may name the clone's objects). */
function fetchPack(repo: string, want: string, have: string): Promise<Buffer> {
  return gitBytes(repo, ["pack-objects", "--stdout", "-q", "--revs", "--thin"], `${want}\n^${have}\n`);
}

const WHO = "A U Thor <a@example.com> 1700000000 +0000";

async function present(repo: string, id: string): Promise<boolean> {
  return git(repo, ["cat-file", "-e", id]).then(
    () => true,
    () => false,
  );
}

describe("workspace: a small fetched pack written in the Run's process (ADR 0501)", function () {
  this.timeout(30_000);
  let dir: string;
  let up: string;
  let mine: string;
  let ctx: RepoContext;
  let base: string;

  /** An object written as given, whatever git would say of it. */
  async function literal(type: string, body: string): Promise<string> {
    return (await gitBytes(up, ["hash-object", "-w", "-t", type, "--literally", "--stdin"], body)).toString().trim();
  }

  /** Copies the objects of `revs` from `up` into `mine` loose, as a small fetch's unpack-objects leaves them. */
  async function unpackInto(revs: string): Promise<void> {
    const pack = await gitBytes(up, ["pack-objects", "--stdout", "-q", "--revs"], revs);
    await gitBytes(mine, ["unpack-objects", "-q"], pack);
  }

  beforeEach(async () => {
    dir = await makeTempDir("tr-unpack-fetched-");
    up = join(dir, "up");
    mine = join(dir, "mine");
    await git(dir, ["init", "-q", "--initial-branch=main", up]);
    base = await commitFiles(up, { "a.txt": "a\n", "dir/b.txt": `${"b line\n".repeat(200)}`, "dir/deep/c.txt": "c\n" }, "base");
    await git(dir, ["init", "-q", "--initial-branch=main", mine]);
    await unpackInto(`${base}\n`);
    await git(mine, ["update-ref", "refs/remotes/origin/main", base]);
    knowCloneStore(mine, { commonDir: join(mine, ".git"), dir: join(mine, ".git", "objects"), algorithm: "sha1" });
    // Nothing here starts git: the store is known, everything else is read from files.
    ctx = { root: mine, remote: "origin" } as RepoContext;
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes a pack whose links all reach the whole history, deltas on the clone's objects included; git finds it connected", async () => {
    const next = await commitFiles(up, { "dir/b.txt": `${"b line\n".repeat(200)}one more\n`, "new.txt": "new\n" }, "next");
    const pack = await fetchPack(up, next, base);
    assert.equal(await unpackFetched(ctx, pack, [next], [base]), true);
    await git(mine, ["update-ref", "refs/remotes/origin/main", next]);
    await git(mine, ["fsck", "--strict", "--no-dangling", "--no-progress"]);
    assert.equal(await git(mine, ["rev-list", "--objects", next, "--not", base]).then((l) => l.split("\n").length), 5);
  });

  it("a clone whose history is packed (as `git clone` leaves it): the parent, its trees and the delta bases read from the pack", async () => {
    await git(mine, ["repack", "-a", "-d", "-q"]);
    assert.equal(readdirSync(join(mine, ".git", "objects")).filter((n) => /^[0-9a-f]{2}$/.test(n)).length, 0, "no loose object left");
    const next = await commitFiles(up, { "dir/b.txt": `${"b line\n".repeat(200)}packed base\n`, "dir/deep/d.txt": "d\n" }, "next");
    assert.equal(await unpackFetched(ctx, await fetchPack(up, next, base), [next], [base]), true);
    await git(mine, ["update-ref", "refs/remotes/origin/main", next]);
    await git(mine, ["fsck", "--strict", "--no-dangling", "--no-progress"]);
  });

  it("a parent that is an ancestor of a whole tip, not a tip itself, is proved by walking the loose commits", async () => {
    const second = await commitFiles(up, { "a.txt": "a2\n" }, "second");
    await unpackInto(`${second}\n^${base}\n`);
    await git(mine, ["update-ref", "refs/remotes/origin/main", second]);
    await git(up, ["checkout", "-q", "-b", "side", base]);
    const side = await commitFiles(up, { "side.txt": "side\n" }, "side");
    const ids = await Promise.all([side, `${side}^{tree}`, `${side}:side.txt`].map((r) => git(up, ["rev-parse", r])));
    assert.equal(await unpackFetched(ctx, await packOf(up, ids), [side], [second]), true);
    await git(mine, ["update-ref", "refs/remotes/origin/side", side]);
    await git(mine, ["fsck", "--strict", "--no-dangling", "--no-progress"]);
  });

  it("a pack missing an object is refused and nothing is written", async () => {
    const next = await commitFiles(up, { "new.txt": "new\n" }, "next");
    const ids = await Promise.all([next, `${next}^{tree}`].map((r) => git(up, ["rev-parse", r])));
    assert.equal(await unpackFetched(ctx, await packOf(up, ids), [next], [base]), false);
    for (const id of ids) assert.equal(await present(mine, id), false);
  });

  it("a link of the wrong type is refused, inside the pack and out of it", async () => {
    const blob = await git(up, ["rev-parse", `${base}:a.txt`]);
    const commit = await literal("commit", `tree ${blob}\nparent ${base}\nauthor ${WHO}\ncommitter ${WHO}\n\nbad\n`);
    assert.equal(await unpackFetched(ctx, await packOf(up, [commit]), [commit], [base]), false, "a tree link to a blob the clone has");
    const blobInPack = await literal("blob", "in the pack\n");
    const inside = await literal("commit", `tree ${blobInPack}\nparent ${base}\nauthor ${WHO}\ncommitter ${WHO}\n\nbad\n`);
    assert.equal(await unpackFetched(ctx, await packOf(up, [inside, blobInPack]), [inside], [base]), false, "a tree link to a blob of the pack");
    for (const id of [commit, inside, blobInPack]) assert.equal(await present(mine, id), false);
  });

  it("a parent the clone has but no whole tip reaches (left by an earlier fetch, its tree missing) is refused", async () => {
    const orphan = await commitFiles(up, { "orphan.txt": "never fetched whole\n" }, "orphan");
    // An earlier fetch cut short: the commit landed, its tree and blob did not.
    await gitBytes(mine, ["unpack-objects", "-q"], await packOf(up, [orphan]));
    assert.equal(await present(mine, orphan), true);
    const child = await commitFiles(up, { "child.txt": "child\n" }, "child");
    const pack = await fetchPack(up, child, orphan);
    assert.equal(await unpackFetched(ctx, pack, [child], [base]), false);
    assert.equal(await present(mine, child), false);
    // git's own check agrees: the orphan's history is not whole.
    await assert.rejects(git(mine, ["rev-list", "--objects", orphan, "--not", "--all"]));
  });

  it("a tree the pack names at a path no whole commit has it at is refused; a want outside the pack must be whole", async () => {
    await git(up, ["mv", "dir/deep", "moved"]);
    await git(up, ["commit", "-q", "-m", "moved"]);
    const moved = await git(up, ["rev-parse", "HEAD"]);
    // The moved tree is the clone's (under dir/deep), present and whole, but it is not proved so at its new path.
    assert.equal(await unpackFetched(ctx, await fetchPack(up, moved, base), [moved], [base]), false);
    assert.equal(await present(mine, moved), false);
    const empty = await packOf(up, []);
    assert.equal(await unpackFetched(ctx, empty, [base], [base]), true, "a want that is a whole tip needs no object");
    assert.equal(await unpackFetched(ctx, empty, [moved], [base]), false);
  });
});
