/**
 * upload-pack's ref listings written by the sandbox (ADR 0479), held byte for byte against git's
 * own on the same repository after each change: `git upload-pack --http-backend-info-refs .` (v0,
 * v1) and `git upload-pack --stateless-rpc .` given a v2 ls-refs request with each combination of
 * arguments git sends. States: no ref (HEAD unborn), loose and packed refs, refs/pull (hidden from
 * pushes only), annotated, nested and lightweight tags, a symbolic ref, a name outside ASCII,
 * hidden refs with a `!` after them, HEAD hidden, HEAD at a missing branch, lsrefs.unborn,
 * uploadpack.allowFilter. And what it leaves to upload-pack (null): broken refs, a detached HEAD,
 * a symbolic ref to a symbolic ref, a shallow repository, requests not in git's plain shape; but
 * not what a folder no asked-for ref can be in holds (refs/pull/ for a fetch of a branch), which is
 * not read.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { CommitLookups } from "../../../src/sandbox/commit-lookup";
import { gitEnv } from "../../../src/sandbox/git";
import { pktLine } from "../../../src/sandbox/smart-http";
import { UploadPackRefs } from "../../../src/sandbox/upload-pack-refs";
import { bareWithWork } from "./support";
import type { BareWithWork } from "./support";

function uploadPack(gitDir: string, args: string[], gitProtocol: string | undefined, input: Buffer | null): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      ["upload-pack", ...args, "."],
      { cwd: gitDir, encoding: "buffer", env: gitEnv(gitProtocol ? { GIT_PROTOCOL: gitProtocol } : {}) },
      (e, out) => (e ? reject(e) : resolve(out)),
    );
    child.stdin?.end(input ?? undefined);
  });
}

/**
 * A v2 ls-refs request as git writes it: the command, its capabilities (git 2.39 sends them
 * without a newline), a delimiter and the arguments (each with one), a flush.
 */
function lsRefsRequest(args: string[], capabilities = ["agent=git/2.39.5", "object-format=sha1"], delim = true, newline = ""): Buffer {
  return Buffer.concat([
    pktLine("command=ls-refs\n"),
    ...capabilities.map((c) => pktLine(`${c}${newline}`)),
    ...(delim ? [Buffer.from("0001"), ...args.map((a) => pktLine(`${a}\n`))] : []),
    Buffer.from("0000"),
  ]);
}

/** The argument sets the comparisons run: none, each of git's, prefixes as `git fetch` and `git ls-remote` send them, a glob character, overlapping prefixes. */
const ARGUMENT_SETS: string[][] = [
  [],
  ["peel"],
  ["symrefs"],
  ["unborn"],
  ["peel", "symrefs", "unborn"],
  ["symrefs", "unborn", "ref-prefix HEAD", "ref-prefix refs/heads/", "ref-prefix refs/tags/"],
  ["peel", "symrefs", "ref-prefix refs/heads/main"],
  ["peel", "ref-prefix refs/tags/"],
  ["ref-prefix refs/heads/*", "ref-prefix refs/heads/c"],
  ["ref-prefix refs/", "ref-prefix refs/heads/", "ref-prefix refs/pull/1"],
  ["ref-prefix refs/nothing/"],
  ["symrefs", "ref-prefix H"],
];

describe("sandbox upload-pack ref listings without upload-pack (integration)", function () {
  let repo: BareWithWork;
  let gitDir: string;
  let commits: CommitLookups;
  let refs: UploadPackRefs;

  before(async () => {
    repo = await bareWithWork("sbx-up-refs-");
    gitDir = repo.gitDir;
    commits = new CommitLookups();
    refs = new UploadPackRefs(commits);
  });

  after(async () => {
    await commits.stop();
    await repo.remove();
  });

  const bare = (...args: string[]): Promise<string> => repo.bare(...args);
  const commit = (message: string): Promise<string> => repo.commit(message);

  async function sameAdvertisement(gitProtocol?: string): Promise<string> {
    const ours = await refs.advertisement(gitDir, gitProtocol);
    const theirs = await uploadPack(gitDir, ["--http-backend-info-refs"], gitProtocol, null);
    assert.ok(ours, "written without upload-pack");
    assert.equal(ours.toString("latin1"), theirs.toString("latin1"));
    return ours.toString("latin1");
  }

  async function sameLsRefs(request: Buffer): Promise<string> {
    const ours = await refs.lsRefs(gitDir, request);
    const theirs = await uploadPack(gitDir, ["--stateless-rpc"], "version=2", request);
    assert.ok(ours, `written without upload-pack: ${request.toString("latin1")}`);
    assert.equal(ours.toString("latin1"), theirs.toString("latin1"), request.toString("latin1"));
    return ours.toString("latin1");
  }

  /** Every listing the sandbox writes, against git's: v0, v1, and ls-refs with each argument set. */
  async function allSame(): Promise<{ v0: string; lsRefs: string[] }> {
    const v0 = await sameAdvertisement();
    await sameAdvertisement("version=1");
    const lsRefs: string[] = [];
    for (const args of ARGUMENT_SETS) lsRefs.push(await sameLsRefs(lsRefsRequest(args)));
    return { v0, lsRefs };
  }

  it("no ref, HEAD unborn: v0 a flush alone; ls-refs names HEAD unborn only when asked", async () => {
    const { v0, lsRefs } = await allSame();
    assert.equal(v0, "0000");
    assert.equal(lsRefs[4], `${pktLine("unborn HEAD symref-target:refs/heads/main\n").toString("latin1")}0000`);
    await sameLsRefs(lsRefsRequest([], ["agent=git/2.39.5"], false));
  });

  it("loose and packed refs, tags, a symbolic ref, refs/pull, a name outside ASCII: git's bytes", async () => {
    const first = await commit("first");
    const second = await commit("second");
    await bare("update-ref", "refs/heads/feature", first);
    await bare("update-ref", "refs/heads/gone", first);
    await bare("update-ref", "refs/pull/1/head", first);
    await bare("update-ref", "refs/pull/2/head", second);
    await bare("tag", "-a", "-m", "v1", "v1", first);
    await bare("tag", "-a", "-m", "nested", "v1-nested", "v1");
    await bare("tag", "light", second);
    await bare("update-ref", "refs/heads/café", second);
    await bare("update-ref", "refs/heads/cafe-x", second);
    const { v0 } = await allSame();
    assert.ok(v0.includes(`${second} HEAD\0`) && v0.includes(" symref=HEAD:refs/heads/main "), "HEAD first, with its symref");
    assert.ok(v0.includes("refs/pull/1/head"), "receive.hideRefs hides refs/pull from pushes only");
    assert.ok(v0.includes("refs/tags/v1^{}"), "a tag is followed by its peeled object");
    await bare("pack-refs", "--all");
    await allSame();
    // A loose value over a packed one, a ref deleted from packed-refs, a symbolic ref.
    await bare("update-ref", "refs/heads/feature", second);
    await bare("update-ref", "-d", "refs/heads/gone");
    await bare("symbolic-ref", "refs/heads/alias", "refs/heads/main");
    const { lsRefs } = await allSame();
    assert.ok(lsRefs[2]!.includes(`${second} refs/heads/alias symref-target:refs/heads/main`));
  });

  it("hidden refs (uploadpack and transfer, a `!` after), HEAD hidden, lsrefs.unborn, uploadpack.allowFilter: read from the config as it changes", async () => {
    await bare("config", "--add", "uploadpack.hideRefs", "refs/pull");
    await bare("config", "--add", "transfer.hideRefs", "!refs/pull/2/");
    const { v0 } = await allSame();
    assert.ok(v0.includes("refs/pull/2/head") && !v0.includes("refs/pull/1/head"));
    await bare("config", "--add", "transfer.hideRefs", "HEAD");
    await allSame();
    await bare("config", "--unset-all", "transfer.hideRefs");
    await bare("config", "--unset-all", "uploadpack.hideRefs");
    await bare("config", "uploadpack.allowFilter", "true");
    assert.match((await allSame()).v0, / symref=HEAD:refs\/heads\/main filter /);
    await bare("config", "--unset", "uploadpack.allowFilter");
    // HEAD at a branch that does not exist: unborn to ls-refs, absent from v0.
    await bare("symbolic-ref", "HEAD", "refs/heads/nothing");
    for (const unborn of ["ignore", "allow", "advertise"]) {
      await bare("config", "lsrefs.unborn", unborn);
      await allSame();
    }
    await bare("config", "--unset", "lsrefs.unborn");
    await bare("symbolic-ref", "HEAD", "refs/heads/main");
    await allSame();
  });

  it("leaves to upload-pack what it does not model: broken refs, a detached HEAD, a symbolic ref to a symbolic ref, a shallow repository", async () => {
    const any = lsRefsRequest(["symrefs"]);
    const expectNull = async (why: string): Promise<void> => {
      assert.equal(await refs.advertisement(gitDir, undefined), null, why);
      assert.equal(await refs.lsRefs(gitDir, any), null, why);
    };
    const broken = path.join(gitDir, "refs", "heads", "broken");
    for (const content of [`${"1234567890".repeat(4)}\n`, "garbage\n", "ref: refs/heads/nothing\n", "ref: refs/heads/alias\n"]) {
      await fsp.writeFile(broken, content);
      await expectNull(content);
      // A request that does not name it: git does not read it either, and the answer is written.
      await sameLsRefs(lsRefsRequest(["peel", "symrefs", "ref-prefix refs/tags/", "ref-prefix HEAD"]));
    }
    await fsp.rm(broken);
    const head = await fsp.readFile(path.join(gitDir, "HEAD"), "utf8");
    await fsp.writeFile(path.join(gitDir, "HEAD"), `${await bare("rev-parse", "refs/heads/main")}\n`);
    await expectNull("detached HEAD");
    await fsp.writeFile(path.join(gitDir, "HEAD"), head);
    await fsp.writeFile(path.join(gitDir, "shallow"), `${await bare("rev-parse", "refs/heads/main")}\n`);
    await expectNull("shallow");
    await fsp.rm(path.join(gitDir, "shallow"));
    await allSame();
  });

  it("a folder no ref asked for can be in (outside every prefix, or hidden) is not read: what it holds does not send the answer to upload-pack", async () => {
    // A symbolic link under refs/pull/9/: a listing that reads the folder leaves it to upload-pack.
    const pull = path.join(gitDir, "refs", "pull", "9");
    await fsp.mkdir(pull, { recursive: true });
    await fsp.symlink(path.join(gitDir, "refs", "heads", "main"), path.join(pull, "head"));
    assert.equal(await refs.lsRefs(gitDir, lsRefsRequest(["symrefs", "ref-prefix refs/pull/"])), null);
    assert.equal(await refs.advertisement(gitDir, undefined), null);
    // What `git fetch origin main` asks, and HEAD's branch: refs/pull/ is not read, the answer is written.
    const branch = "refs/heads/main";
    const dwim = [branch, `refs/${branch}`, `refs/tags/${branch}`, `refs/heads/${branch}`, `refs/remotes/${branch}`, `refs/remotes/${branch}/HEAD`];
    await sameLsRefs(lsRefsRequest(["peel", "symrefs", "unborn", ...dwim.map((p) => `ref-prefix ${p}`)]));
    await sameLsRefs(lsRefsRequest(["symrefs", "ref-prefix HEAD", "ref-prefix refs/tags/"]));
    // A symbolic ref shown whose target is in the folder not read: the target is read, a plain ref
    // answered as git answers, a symbolic one (a chain) left to upload-pack as anywhere.
    await fsp.rm(path.join(pull, "head"));
    await bare("update-ref", "refs/pull/9/head", await bare("rev-parse", "refs/heads/main"));
    await bare("symbolic-ref", "refs/heads/to-pull", "refs/pull/9/head");
    await sameLsRefs(lsRefsRequest(["peel", "symrefs", "ref-prefix refs/heads/"]));
    await bare("symbolic-ref", "refs/pull/9/head", "refs/heads/main");
    assert.equal(await refs.lsRefs(gitDir, lsRefsRequest(["symrefs", "ref-prefix refs/heads/"])), null);
    await bare("symbolic-ref", "--delete", "refs/heads/to-pull");
    await fsp.rm(path.join(pull, "head"));
    await fsp.symlink(path.join(gitDir, "refs", "heads", "main"), path.join(pull, "head"));
    // Hidden from upload-pack (a pattern for the folder, none inside it): not read for v0 either.
    await bare("config", "uploadpack.hideRefs", "refs/pull");
    await sameAdvertisement();
    await bare("config", "--add", "uploadpack.hideRefs", "!refs/pull/9/head");
    assert.equal(await refs.advertisement(gitDir, undefined), null);
    await bare("config", "--unset-all", "uploadpack.hideRefs");
    await fsp.rm(pull, { recursive: true });
    await allSame();
  });

  it("answers only ls-refs requests in git's plain shape; any other goes to upload-pack", async () => {
    const odd: Buffer[] = [
      lsRefsRequest(["exclude refs/heads/"]),
      lsRefsRequest([], ["agent=git/2.39.5", "object-format=sha256"]),
      lsRefsRequest([], ["agent=git/2.39.5", "session-id=1"]),
      Buffer.concat([pktLine("command=fetch\n"), Buffer.from("0001"), pktLine("done\n"), Buffer.from("0000")]),
      Buffer.concat([pktLine("command=ls-refs\n"), pktLine("command=ls-refs\n"), Buffer.from("0000")]),
      Buffer.concat([pktLine("command=ls-refs\n"), Buffer.from("0004"), Buffer.from("0000")]),
      Buffer.concat([pktLine("command=ls-refs\n"), Buffer.from("0001"), Buffer.from("0005\n"), Buffer.from("0000")]),
      Buffer.concat([lsRefsRequest(["peel"]), pktLine("command=ls-refs\n")]),
      lsRefsRequest(["peel"]).subarray(0, -2),
      Buffer.from("0000"),
    ];
    for (const request of odd) assert.equal(await refs.lsRefs(gitDir, request), null, request.toString("latin1"));
    // Server options are taken, as upload-pack takes them.
    await sameLsRefs(lsRefsRequest(["peel", "symrefs"], ["agent=git/2.39.5", "server-option=x", "object-format=sha1"]));
    // Capability lines with a newline read as those without, as upload-pack's packet reader reads them.
    await sameLsRefs(lsRefsRequest(["peel", "symrefs"], ["agent=git/2.39.5", "object-format=sha1"], true, "\n"));
    // What `git fetch` asks before fetching a branch: each place the name could be.
    const branch = "refs/heads/main";
    const dwim = [branch, `refs/${branch}`, `refs/tags/${branch}`, `refs/heads/${branch}`, `refs/remotes/${branch}`, `refs/remotes/${branch}/HEAD`];
    await sameLsRefs(lsRefsRequest(["peel", "symrefs", "unborn", ...dwim.map((p) => `ref-prefix ${p}`)]));
  });
});
