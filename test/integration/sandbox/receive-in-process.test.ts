/**
 * A push taken in the sandbox's process (ADR 0482) against real `git receive-pack --stateless-rpc`
 * given the same request body in a copy of the same repository: where the sandbox takes it, the
 * same answer byte for byte and the same refs after; where it does not (a stale lease, an atomic
 * push with one command refused, a missing object, a hidden ref), nothing changed, so receive-pack
 * answers it as before. Then real `git push` over HTTP to the sandbox, with no receive-pack started.
 */
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { buildPack } from "../../../src/adapters/git/pack-file";
import { CommitLookups } from "../../../src/sandbox/commit-lookup";
import { ObjectReaders } from "../../../src/sandbox/object-reader";
import { RECEIVE_PACK_CONFIG, commitInitial, configEnv, gitEnv, initBare } from "../../../src/sandbox/git";
import { knownConnected, unmarkConnected } from "../../../src/sandbox/objects-connected";
import { parsePushCommands } from "../../../src/sandbox/push-commands";
import { receiveInProcess } from "../../../src/sandbox/receive-in-process";
import { receiveSetupOf } from "../../../src/sandbox/receive-setup";
import { watchServices } from "../../../src/sandbox/service-watch";
import { startSandbox } from "../../../src/sandbox/start";
import { commitFile, gitBytes, gitOk } from "./support";

const ZERO = "0".repeat(40);
const GIT_PUSH_CAPS = "report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5";

function pkt(text: string): Buffer {
  const body = Buffer.from(text, "utf8");
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, "0")), body]);
}

interface Command {
  old: string | null;
  new: string | null;
  ref: string;
}

function requestBody(commands: Command[], caps: string, pack: Buffer | null): Buffer {
  const lines = commands.map((c, i) => pkt(`${c.old ?? ZERO} ${c.new ?? ZERO} ${c.ref}${i === 0 ? `\0${caps}` : ""}\n`));
  return Buffer.concat([...lines, Buffer.from("0000"), pack ?? Buffer.alloc(0)]);
}

describe("sandbox: a push taken in process, against git receive-pack (integration)", function () {
  let tmp: string;
  let template: string;
  let work: string;
  let commits: CommitLookups;
  let objects: ObjectReaders;
  /** The argv of every git started through the sandbox's git(): index-pack is looked for. */
  const started: string[] = [];
  let unwatch: () => void;
  let n = 0;
  let base: string;

  before(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-receive-"));
    template = path.join(tmp, "template.git");
    await initBare(template, "main");
    base = await commitInitial(
      template,
      "main",
      { files: { "README.md": "# r\n", "big.txt": Array.from({ length: 400 }, (_, i) => `line ${i}\n`).join("") } },
      "Initial commit",
    );
    await gitOk(["--git-dir", template, "update-ref", "refs/heads/old", base], tmp);
    work = path.join(tmp, "work");
    await gitOk(["clone", "--quiet", template, work], tmp);
    commits = new CommitLookups();
    objects = new ObjectReaders();
    unwatch = watchGitProcesses((args) => started.push(args.join(" ")));
  });

  after(async () => {
    unwatch?.();
    await commits?.stop();
    await objects?.stop();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  /** Two copies of the template: one for the sandbox's way, one for receive-pack. */
  async function twoCopies(packed = false): Promise<[string, string]> {
    n += 1;
    const a = path.join(tmp, `a${n}.git`);
    const b = path.join(tmp, `b${n}.git`);
    await fsp.cp(template, a, { recursive: true });
    await fsp.cp(template, b, { recursive: true });
    if (packed) for (const dir of [a, b]) await gitOk(["--git-dir", dir, "pack-refs", "--all", "--prune"], tmp);
    return [a, b];
  }

  async function pack(revs: string, thin = false): Promise<Buffer> {
    const r = await gitBytes(["pack-objects", "--stdout", "--revs", "-q", ...(thin ? ["--thin"] : [])], work, revs);
    assert.equal(r.code, 0);
    return r.out;
  }

  async function receivePack(gitDir: string, body: Buffer): Promise<Buffer> {
    const env = gitEnv(configEnv([["core.hooksPath", path.join(tmp, "no-hooks")], ...RECEIVE_PACK_CONFIG]));
    const r = await gitBytes(["receive-pack", "--stateless-rpc", "."], gitDir, body, env);
    return r.out;
  }

  async function refs(gitDir: string): Promise<string> {
    return gitOk(["--git-dir", gitDir, "for-each-ref", "--format=%(refname) %(objectname)"], tmp);
  }

  async function inProcess(gitDir: string, body: Buffer): ReturnType<typeof receiveInProcess> {
    const file = path.join(tmp, `body-${n}`);
    await fsp.writeFile(file, body);
    const request = parsePushCommands(body);
    assert.ok(request, "the request reads");
    const listing = await gitOk(["--git-dir", gitDir, "config", "--list", "-z"], tmp);
    return receiveInProcess({ gitDir, body: { path: file, size: body.length }, request, setup: receiveSetupOf(listing), hook: false, commits, objects });
  }

  function indexPacks(): number {
    return started.filter((s) => / index-pack /.test(` ${s} `)).length;
  }

  /** The same answer and the same refs as receive-pack's; `indexPack`: whether the pack went to index-pack (ADR 0491: only when not certain here). */
  async function sameAsReceivePack(body: Buffer, packed = false, indexPack = false): Promise<string> {
    const [a, b] = await twoCopies(packed);
    const before = indexPacks();
    const ours = await inProcess(a, body);
    assert.equal(indexPacks() - before, indexPack ? 1 : 0, indexPack ? "index-pack took the pack" : "no index-pack");
    const theirs = await receivePack(b, body);
    assert.ok(ours.answer, "taken in process");
    assert.equal(ours.answer.toString("latin1"), theirs.toString("latin1"));
    assert.equal(await refs(a), await refs(b));
    const fsck = await gitBytes(["--git-dir", a, "fsck", "--strict", "--no-dangling"], tmp);
    assert.equal(fsck.code, 0, "every object the refs reach is there, and git fsck --strict finds nothing wrong");
    return a;
  }

  /** Not taken: nothing moved, and receive-pack, given the same body, answers as it would have. */
  async function leftToReceivePack(body: Buffer, said: RegExp, packed = false): Promise<void> {
    const [a] = await twoCopies(packed);
    const before = await refs(a);
    const ours = await inProcess(a, body);
    assert.equal(ours.answer, null, "left to receive-pack");
    assert.equal(await refs(a), before, "no ref moved");
    assert.match((await receivePack(a, body)).toString("latin1"), said);
  }

  it("creates a branch (side-band-64k, report-status-v2: git push's request), as receive-pack does", async () => {
    const c1 = await commitFile(work, "a.txt", "a\n", "add a");
    await sameAsReceivePack(requestBody([{ old: null, new: c1, ref: "refs/heads/feature" }], GIT_PUSH_CAPS, await pack(`${c1}\n^${base}\n`)));
  });

  it("updates a branch without side-band (report-status), and several refs in one push, atomic or not", async () => {
    const c2 = await commitFile(work, "b.txt", "b\n", "add b");
    const p = await pack(`${c2}\n^${base}\n`);
    await sameAsReceivePack(requestBody([{ old: base, new: c2, ref: "refs/heads/main" }], "report-status", p));
    await sameAsReceivePack(requestBody([{ old: base, new: c2, ref: "refs/heads/main" }], "report-status side-band-64k", p));
    const both = [
      { old: base, new: c2, ref: "refs/heads/main" },
      { old: null, new: c2, ref: "refs/records/x" },
    ];
    await sameAsReceivePack(requestBody(both, "report-status side-band-64k quiet agent=ticket-runner", p));
    await sameAsReceivePack(requestBody(both, "report-status side-band-64k quiet atomic agent=ticket-runner", p));
  });

  it("deletes a branch (no pack), and moves a branch to a commit it has with an empty pack", async () => {
    await sameAsReceivePack(requestBody([{ old: base, new: null, ref: "refs/heads/old" }], GIT_PUSH_CAPS, null));
    await sameAsReceivePack(requestBody([{ old: null, new: base, ref: "refs/heads/again" }], GIT_PUSH_CAPS, await pack(`^${base}\n`)));
  });

  it("packed refs: an update writes the loose ref as git does; a packed ref's deletion is left to receive-pack", async () => {
    const c4 = await commitFile(work, "d.txt", "d\n", "add d");
    await sameAsReceivePack(requestBody([{ old: base, new: c4, ref: "refs/heads/main" }], GIT_PUSH_CAPS, await pack(`${c4}\n^${base}\n`)), true);
    await leftToReceivePack(requestBody([{ old: base, new: null, ref: "refs/heads/old" }], "report-status", null), /ok refs\/heads\/old/, true);
  });

  it("a forced non-fast-forward with a thin pack (deltas against objects the repository has)", async () => {
    await gitOk(["checkout", "--quiet", "-B", "side", base], work);
    await fsp.appendFile(path.join(work, "big.txt"), "one more line\n");
    await gitOk(["commit", "--quiet", "-am", "longer"], work);
    const side = (await gitOk(["rev-parse", "HEAD"], work)).trim();
    const thin = await pack(`${side}\n^${base}\n`, true);
    const a = await sameAsReceivePack(requestBody([{ old: base, new: side, ref: "refs/heads/old" }], GIT_PUSH_CAPS, thin));
    assert.ok(await knownConnected(a), "still known connected");
  });

  it("leaves to receive-pack: a stale lease, an atomic push with one stale command, a hidden ref", async () => {
    const c3 = await commitFile(work, "c.txt", "c\n", "add c");
    const p = await pack(`${c3}\n^${base}\n`);
    await leftToReceivePack(requestBody([{ old: c3, new: c3, ref: "refs/heads/main" }], "report-status", p), /ng refs\/heads\/main failed to update ref/);
    await leftToReceivePack(requestBody([{ old: null, new: c3, ref: "refs/heads/main" }], "report-status", p), /ng refs\/heads\/main failed to update ref/);
    const atomic = [
      { old: null, new: c3, ref: "refs/heads/fresh" },
      { old: c3, new: c3, ref: "refs/heads/old" },
    ];
    await leftToReceivePack(requestBody(atomic, "report-status atomic", p), /ng refs\/heads\/fresh atomic transaction failed/);
    await leftToReceivePack(
      requestBody([{ old: null, new: c3, ref: "refs/pull/1/head" }], "report-status", p),
      /ng refs\/pull\/1\/head deny updating a hidden ref/,
    );
  });

  it("leaves to receive-pack a push whose objects are missing: a commit not sent, a tree not sent", async () => {
    const absent = "1234567890123456789012345678901234567890";
    await leftToReceivePack(
      requestBody([{ old: null, new: absent, ref: "refs/heads/nothing" }], "report-status", await pack(`^${base}\n`)),
      /missing necessary objects/,
    );
    // A commit whose tree is in neither the pack nor the repository: index-pack refuses the pack.
    const blob = (await gitBytes(["hash-object", "-w", "--stdin"], work, "only here\n")).out.toString().trim();
    const tree = (await gitBytes(["mktree"], work, `100644 blob ${blob}\tq\n`)).out.toString().trim();
    const orphan = (await gitBytes(["commit-tree", tree, "-m", "orphan"], work)).out.toString().trim();
    const commitOnly = await gitBytes(["pack-objects", "--stdout", "-q"], work, `${orphan}\n`);
    const [a] = await twoCopies();
    const body = requestBody([{ old: null, new: orphan, ref: "refs/heads/orphan" }], "report-status", commitOnly.out);
    const ours = await inProcess(a, body);
    assert.deepEqual(ours, { answer: null, packChecked: false });
    assert.match((await receivePack(a, body)).toString("latin1"), /ng refs\/heads\/orphan missing necessary objects|unpack/);
  });

  /** A pack with its trailer made anew, so only what was changed before the trailer is wrong. */
  function retrailed(pack: Buffer): Buffer {
    const body = pack.subarray(0, pack.length - 20);
    return Buffer.concat([body, createHash("sha1").update(body).digest()]);
  }

  async function objectFiles(gitDir: string): Promise<string> {
    const names = await fsp.readdir(path.join(gitDir, "objects"), { recursive: true });
    // index-pack leaves its temporary pack behind when it dies, as before this change.
    return names
      .filter((n) => !n.startsWith(path.join("pack", "tmp_pack_")))
      .sort()
      .join("\n");
  }

  /**
   * Refused as before (ADR 0491): not taken here, the pack given to index-pack (which refuses it),
   * no object written, and receive-pack then answers byte for byte as it answers the same body in
   * a copy this never touched.
   */
  async function refusedAsBefore(body: Buffer, said: RegExp): Promise<void> {
    const [a, b] = await twoCopies();
    const before = indexPacks();
    const ours = await inProcess(a, body);
    assert.deepEqual(ours, { answer: null, packChecked: false });
    assert.equal(indexPacks() - before, 1, "index-pack was given the pack");
    assert.equal(await objectFiles(a), await objectFiles(b), "no object written");
    const answer = await receivePack(a, body);
    assert.equal(answer.toString("latin1"), (await receivePack(b, body)).toString("latin1"));
    assert.match(answer.toString("latin1"), said);
  }

  async function catFile(type: string, id: string): Promise<Buffer> {
    const r = await gitBytes(["cat-file", type, id], work);
    assert.equal(r.code, 0);
    return r.out;
  }

  it("our own pusher's pack (whole objects: pack-file.ts) is written here, no index-pack, fsck --strict clean", async () => {
    await gitOk(["checkout", "--quiet", "-B", "own", base], work);
    const c = await commitFile(work, "own.txt", "own\n", "own");
    const tree = (await gitOk(["rev-parse", `${c}^{tree}`], work)).trim();
    const blob = (await gitOk(["rev-parse", `${c}:own.txt`], work)).trim();
    const own = buildPack(
      [
        { type: "commit", body: await catFile("commit", c) },
        { type: "tree", body: await catFile("tree", tree) },
        { type: "blob", body: await catFile("blob", blob) },
      ],
      "sha1",
    );
    const caps = "report-status side-band-64k quiet atomic agent=ticket-runner";
    const a = await sameAsReceivePack(requestBody([{ old: null, new: c, ref: "refs/heads/own" }], caps, own));
    assert.ok(await knownConnected(a), "still known connected");
    const loose = await fsp.readFile(path.join(a, "objects", c.slice(0, 2), c.slice(2)));
    assert.ok(loose.length > 0, "the commit is a loose object");
  });

  it("deltas inside the pack, OFS_DELTA and REF_DELTA, are applied here", async () => {
    await gitOk(["checkout", "--quiet", "-B", "deltas", base], work);
    await fsp.appendFile(path.join(work, "big.txt"), "first\n");
    await gitOk(["commit", "--quiet", "-am", "first"], work);
    await fsp.appendFile(path.join(work, "big.txt"), "second\n");
    await gitOk(["commit", "--quiet", "-am", "second"], work);
    const tip = (await gitOk(["rev-parse", "HEAD"], work)).trim();
    for (const ofs of [true, false]) {
      const r = await gitBytes(["pack-objects", "--stdout", "--revs", "-q", ...(ofs ? ["--delta-base-offset"] : [])], work, `${tip}\n^${base}\n`);
      assert.equal(r.code, 0);
      // One big.txt is stored as a delta of the other.
      const file = path.join(tmp, `deltas-${ofs}.pack`);
      await fsp.writeFile(file, r.out);
      await gitOk(["index-pack", file], tmp);
      assert.match(await gitOk(["verify-pack", "-v", file.replace(/\.pack$/, ".idx")], tmp), /^[0-9a-f]{40} blob +\d+ \d+ \d+ 1 [0-9a-f]{40}$/m);
      await sameAsReceivePack(requestBody([{ old: null, new: tip, ref: "refs/heads/deltas" }], GIT_PUSH_CAPS, r.out));
    }
  });

  it("a tag goes to index-pack (not read here), and is taken as receive-pack takes it", async () => {
    await gitOk(["tag", "-a", "-m", "v1", "v1", base], work);
    const tag = (await gitOk(["rev-parse", "v1"], work)).trim();
    const p = await gitBytes(["pack-objects", "--stdout", "-q"], work, `${tag}\n`);
    await sameAsReceivePack(requestBody([{ old: null, new: tag, ref: "refs/tags/v1" }], "report-status", p.out), false, true);
  });

  it("refused as before: a corrupt object, a bad trailer, a thin pack whose base is not here, a tree not sent", async () => {
    await gitOk(["checkout", "--quiet", "-B", "refused", base], work);
    const c = await commitFile(work, "refused.txt", "refused\n", "refused");
    const good = await pack(`${c}\n^${base}\n`);
    const body = (p: Buffer): Buffer => requestBody([{ old: null, new: c, ref: "refs/heads/refused" }], "report-status", p);
    const corrupt = Buffer.from(good);
    // A byte inside the first entry's zlib stream (after its one- or two-byte header and the stream's own two).
    corrupt[12 + 6] = corrupt[12 + 6]! ^ 0xff;
    await refusedAsBefore(body(retrailed(corrupt)), /unpack /);
    const badTrailer = Buffer.from(good);
    badTrailer[badTrailer.length - 1] = badTrailer[badTrailer.length - 1]! ^ 0x01;
    await refusedAsBefore(body(badTrailer), /unpack /);
    // A thin pack against a commit the repository never had: its delta's base is nowhere.
    await fsp.appendFile(path.join(work, "big.txt"), "not pushed\n");
    await gitOk(["commit", "--quiet", "-am", "not pushed"], work);
    const notPushed = (await gitOk(["rev-parse", "HEAD"], work)).trim();
    await fsp.appendFile(path.join(work, "big.txt"), "on top\n");
    await gitOk(["commit", "--quiet", "-am", "on top"], work);
    const onTop = (await gitOk(["rev-parse", "HEAD"], work)).trim();
    const thin = await pack(`${onTop}\n^${notPushed}\n`, true);
    await refusedAsBefore(requestBody([{ old: null, new: onTop, ref: "refs/heads/thin" }], "report-status", thin), /unpack /);
    // A commit whose tree is in neither the pack nor the repository.
    const blob = (await gitBytes(["hash-object", "-w", "--stdin"], work, "only here too\n")).out.toString().trim();
    const tree = (await gitBytes(["mktree"], work, `100644 blob ${blob}\tq\n`)).out.toString().trim();
    const orphan = (await gitBytes(["commit-tree", tree, "-m", "orphan too"], work)).out.toString().trim();
    const commitOnly = await gitBytes(["pack-objects", "--stdout", "-q"], work, `${orphan}\n`);
    await refusedAsBefore(requestBody([{ old: null, new: orphan, ref: "refs/heads/orphan" }], "report-status", commitOnly.out), /unpack /);
  });

  it("a deflate stream of a whole object that is longer than its header says is not taken here", async () => {
    const blob = Buffer.from("x\n");
    const head = Buffer.alloc(12);
    head.write("PACK", 0, "latin1");
    head.writeUInt32BE(2, 4);
    head.writeUInt32BE(1, 8);
    // Type blob (3), size 1, but the stream inflates to 2 bytes.
    const lying = retrailed(Buffer.concat([head, Buffer.from([0x31]), deflateSync(blob), Buffer.alloc(20)]));
    await refusedAsBefore(requestBody([{ old: null, new: base, ref: "refs/heads/lying" }], "report-status", lying), /unpack /);
  });

  it("git push over HTTP to the sandbox: create, update, force, delete and atomic with no receive-pack; the effects as before", async () => {
    const root = path.join(tmp, "sb");
    const sb = await startSandbox({ quiet: true, dataDir: root });
    const services: string[] = [];
    const stop = watchServices((args) => services.push(args.join(" ")));
    const packsBefore = indexPacks();
    try {
      await sb.admin.createRepo({ owner: "acme", name: "p", files: { "README.md": "# p\n" } });
      const token = (await sb.admin.addUser({ login: "bob", repos: { "acme/p": "write" } })).token;
      const url = new URL(sb.gitUrl("acme", "p"));
      url.username = "x-access-token";
      url.password = token;
      const clone = path.join(tmp, "sb-clone");
      await gitOk(["clone", "--quiet", url.toString(), clone], tmp);
      const gitDir = path.join(root, "repos", "acme", "p.git");
      const f1 = await commitFile(clone, "f.txt", "1\n", "one");
      await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/feature"], clone);
      await commitFile(clone, "f.txt", "2\n", "two");
      await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/feature"], clone);
      await gitOk(["reset", "--quiet", "--hard", "HEAD~1"], clone);
      const f3 = await commitFile(clone, "f.txt", "3\n", "three");
      await gitOk(["push", "--quiet", "--force", "origin", "HEAD:refs/heads/feature"], clone);
      await gitOk(["push", "--quiet", "--atomic", "origin", "HEAD:refs/heads/a", "HEAD:refs/heads/b"], clone);
      await gitOk(["push", "--quiet", "origin", ":refs/heads/a"], clone);
      assert.deepEqual(
        services.filter((s) => s.startsWith("receive-pack")),
        [],
        "no receive-pack started",
      );
      assert.equal(indexPacks(), packsBefore, "no index-pack either: the packs were written here (ADR 0491)");
      const fsck = await gitBytes(["--git-dir", gitDir, "fsck", "--strict", "--no-dangling"], tmp);
      assert.equal(fsck.code, 0, "git fsck --strict finds nothing wrong");
      const now = await refs(gitDir);
      assert.doesNotMatch(now, new RegExp(f1));
      assert.match(now, new RegExp(`refs/heads/feature ${f3}`));
      assert.match(now, new RegExp(`refs/heads/b ${f3}`));
      assert.doesNotMatch(now, /refs\/heads\/a /);
      assert.ok(await knownConnected(gitDir), "receive-pack took nothing unchecked");
      // A pack receive-pack takes unchecked: the repository is no longer known connected.
      await unmarkConnected(gitDir);
      await commitFile(clone, "f.txt", "4\n", "four");
      await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/feature"], clone);
      assert.ok(
        services.some((s) => s.startsWith("receive-pack")),
        "receive-pack took it",
      );
    } finally {
      stop();
      await sb.stop();
    }
  });
});
