/**
 * A fetch answered in the sandbox's process (ADR 0487) against real `git upload-pack
 * --stateless-rpc` given the same request (the Runs' own, built by fetch-http.ts): the same
 * negotiation byte for byte, and a pack that a client holding the haves takes whole (`git fsck
 * --strict`), with every object `git rev-list --objects <wants> --not <haves>` lists. Where it is
 * not modelled (a merge, a root, a config, another request shape), null: upload-pack answers.
 * Then over real HTTP: the Runs' request with no upload-pack started, and `git fetch` as before.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readUploadAnswer, uploadRequest } from "../../../src/adapters/git/fetch-http";
import { commitInitial, initBare } from "../../../src/sandbox/git";
import { ObjectReaders } from "../../../src/sandbox/object-reader";
import { watchServices } from "../../../src/sandbox/service-watch";
import { startSandbox } from "../../../src/sandbox/start";
import { UploadPackInProcess } from "../../../src/sandbox/upload-pack-in-process";
import { commitFile, gitBytes, gitOk } from "./support";

const CAPS = ["side-band-64k", "ofs-delta", "thin-pack", "no-progress", "agent=ticket-runner"];
const UNKNOWN = "1234567890123456789012345678901234567890";

/** The answer split where side-band begins: the negotiation's pkt-lines, and band 1's bytes (the pack). */
function split(answer: Buffer): { negotiation: string; pack: Buffer } {
  let at = 0;
  const bands: Buffer[] = [];
  let negotiation = "";
  while (at < answer.length) {
    const length = parseInt(answer.toString("latin1", at, at + 4), 16);
    if (length === 0) {
      at += 4;
      continue;
    }
    const payload = answer.subarray(at + 4, at + length);
    if (payload[0] === 1) bands.push(payload.subarray(1));
    else if (bands.length === 0) negotiation += answer.toString("latin1", at, at + length);
    else assert.fail(`a packet on band ${payload[0]}`);
    at += length;
  }
  return { negotiation, pack: Buffer.concat(bands) };
}

describe("sandbox: a fetch answered in process, against git upload-pack (integration)", function () {
  let tmp: string;
  let origin: string;
  let work: string;
  let uploads: UploadPackInProcess;
  let readers: ObjectReaders;
  let n = 0;
  const c = { root: "", one: "", two: "", three: "", four: "", side: "", merge: "", big: "" };

  before(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-upload-"));
    origin = path.join(tmp, "origin.git");
    await initBare(origin, "main");
    c.root = await commitInitial(
      origin,
      "main",
      { files: { "README.md": "# r\n", "src/a.txt": "a\n", "src/deep/b.txt": "b\n", "keep/k.txt": "k\n" } },
      "Initial",
    );
    work = path.join(tmp, "work");
    await gitOk(["clone", "--quiet", origin, work], tmp);
    await gitOk(["config", "user.name", "T"], work);
    await gitOk(["config", "user.email", "t@example.invalid"], work);
    c.one = await commitFile(work, "src/deep/b.txt", "b2\n", "one: a deep change");
    c.two = await commitFile(work, "new/dir/n.txt", "n\n", "two: a new directory");
    await gitOk(["mv", "src/a.txt", "src/moved.txt"], work);
    await fsp.chmod(path.join(work, "README.md"), 0o755);
    await gitOk(["add", "-A"], work);
    await gitOk(["commit", "--quiet", "-m", "three: a move and a mode"], work);
    c.three = await gitOk(["rev-parse", "HEAD"], work);
    await gitOk(["rm", "--quiet", "-r", "keep"], work);
    await gitOk(["commit", "--quiet", "-m", "four: a directory gone"], work);
    c.four = await gitOk(["rev-parse", "HEAD"], work);
    await gitOk(["checkout", "--quiet", "-b", "side", c.two], work);
    c.side = await commitFile(work, "side.txt", "s\n", "side");
    await gitOk(["checkout", "--quiet", "-b", "merged", c.four], work);
    await gitOk(["merge", "--quiet", "--no-edit", "side"], work);
    c.merge = await gitOk(["rev-parse", "HEAD"], work);
    await gitOk(["checkout", "--quiet", "-b", "big", c.four], work);
    // Larger than a pipe's read and than one side-band packet, compressed or not.
    c.big = await commitFile(work, "big.txt", randomBytes(200 * 1024).toString("hex"), "big");
    await gitOk(["push", "--quiet", origin, "main", "side", "merged", "big"], work);
    readers = new ObjectReaders();
    uploads = new UploadPackInProcess(readers);
  });

  after(async () => {
    await readers?.stop();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  async function uploadPack(gitDir: string, body: Buffer): Promise<Buffer> {
    const r = await gitBytes(["upload-pack", "--stateless-rpc", "."], gitDir, body);
    assert.equal(r.code, 0, r.err);
    return r.out;
  }

  /** A client holding exactly the haves (those origin has), then our pack indexed into it: every want whole, fsck --strict clean. */
  async function takenByClient(pack: Buffer, wants: string[], haves: string[]): Promise<Set<string>> {
    n += 1;
    const client = path.join(tmp, `client${n}.git`);
    await gitOk(["init", "--quiet", "--bare", client], tmp);
    const known = [];
    for (const h of haves) if ((await gitBytes(["cat-file", "-e", h], origin)).code === 0) known.push(h);
    for (const [i, h] of known.entries()) await gitOk(["fetch", "--quiet", origin, `${h}:refs/have/${i}`], client);
    const indexed = await gitBytes(["index-pack", "--stdin", "--strict"], client, pack);
    assert.equal(indexed.code, 0, indexed.err);
    const name = /^pack\t([0-9a-f]{40})$/m.exec(indexed.out.toString("utf8"))?.[1];
    assert.ok(name);
    for (const [i, w] of wants.entries()) await gitOk(["update-ref", `refs/want/${i}`, w], client);
    const fsck = await gitBytes(["fsck", "--strict", "--no-dangling"], client);
    assert.equal(fsck.code, 0, fsck.err);
    const idx = await fsp.readFile(path.join(client, "objects", "pack", `pack-${name}.idx`));
    const shown = await gitBytes(["show-index"], client, idx);
    return new Set(
      shown.out
        .toString("utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ")[1]!),
    );
  }

  /** Taken in process: upload-pack's negotiation byte for byte, and a pack the client takes with every object rev-list says is new. */
  async function sameAsUploadPack(wants: string[], haves: string[]): Promise<Set<string>> {
    const body = uploadRequest(wants, haves, CAPS);
    const ours = await uploads.answer(origin, body);
    assert.ok(ours, "answered in process");
    const theirs = split(await uploadPack(origin, body));
    const mine = split(ours);
    assert.equal(mine.negotiation, theirs.negotiation);
    assert.ok(ours.subarray(-4).equals(Buffer.from("0000")), "ends with a flush");
    const objects = await takenByClient(mine.pack, wants, haves);
    const listed = await gitOk(["rev-list", "--objects", ...wants, "--not", ...haves.filter((h) => h !== UNKNOWN)], origin);
    const needed = listed
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(0, 40));
    for (const sha of needed) assert.ok(objects.has(sha), `the pack holds ${sha}`);
    return objects;
  }

  it("one new commit: ACK of the have, the commit, and only the trees and blob that changed", async () => {
    const objects = await sameAsUploadPack([c.one], [c.root]);
    // The commit, the root tree, src/, src/deep/ and the new b.txt: keep/ and README.md are the client's.
    assert.equal(objects.size, 5);
  });

  it("several new commits with a move, a mode change and a directory removed; haves upload-pack ACKs more than once", async () => {
    await sameAsUploadPack([c.four], [c.one, c.root]);
    await sameAsUploadPack([c.four], [UNKNOWN, c.two, c.two]);
    await sameAsUploadPack([c.four], [c.root, c.one, UNKNOWN]);
  });

  it("a blob of 400 kB: read in many chunks, sent in several side-band packets", async () => {
    const objects = await sameAsUploadPack([c.big], [c.four]);
    assert.equal(objects.size, 3);
  });

  it("two wants on lines of their own, and a want the client already has (an empty pack)", async () => {
    await sameAsUploadPack([c.four, c.side], [c.two]);
    const objects = await sameAsUploadPack([c.one], [c.two]);
    assert.equal(objects.size, 0);
  });

  it("leaves to upload-pack: a merge or a root among the new commits, a want missing or not a commit, another request shape or config", async () => {
    const missing = (wants: string[], haves: string[], caps = CAPS) => uploads.answer(origin, uploadRequest(wants, haves, caps));
    assert.equal(await missing([c.merge], [c.four]), null, "a merge");
    assert.equal(await missing([c.two], []), null, "no have: the root would be sent");
    assert.equal(await missing([c.two], [UNKNOWN]), null, "no have in common");
    assert.equal(await missing([UNKNOWN], [c.root]), null, "a want missing");
    const tree = await gitOk(["rev-parse", `${c.one}^{tree}`], origin);
    assert.equal(await missing([tree], [c.root]), null, "a want not a commit");
    assert.equal(await missing([c.one], [c.root], ["multi_ack_detailed", ...CAPS]), null, "multi_ack");
    assert.equal(await missing([c.one], [c.root], ["ofs-delta", "no-progress"]), null, "no side-band");
    assert.equal(await missing([c.one], [c.root], ["side-band-64k"]), null, "progress asked for");
    const copy = path.join(tmp, "noany.git");
    await fsp.cp(origin, copy, { recursive: true });
    await gitOk(["--git-dir", copy, "config", "--unset", "uploadpack.allowAnySHA1InWant"], tmp);
    assert.equal(await uploads.answer(copy, uploadRequest([c.one], [c.root], CAPS)), null, "wants limited to refs");
    await gitOk(["--git-dir", copy, "config", "uploadpack.allowAnySHA1InWant", "true"], tmp);
    assert.ok(await uploads.answer(copy, uploadRequest([c.one], [c.root], CAPS)), "taken again once the config allows it");
    await fsp.writeFile(path.join(copy, "shallow"), `${c.root}\n`);
    assert.equal(await uploads.answer(copy, uploadRequest([c.one], [c.root], CAPS)), null, "a shallow repository");
    assert.equal(readers.started, 2, "one cat-file batch per repository");
  });

  it("over HTTP: the Runs' fetch with no upload-pack started, and git fetch (protocol v2 and v0) as before", async () => {
    const root = path.join(tmp, "sb");
    const sb = await startSandbox({ quiet: true, dataDir: root });
    const started: string[] = [];
    const stop = watchServices((args) => started.push(args.join(" ")));
    try {
      await sb.admin.createRepo({ owner: "acme", name: "p", files: { "README.md": "# p\n" } });
      const token = (await sb.admin.addUser({ login: "bob", repos: { "acme/p": "write" } })).token;
      const url = new URL(sb.gitUrl("acme", "p"));
      url.username = "x-access-token";
      url.password = token;
      const clone = path.join(tmp, "sb-clone");
      await gitOk(["clone", "--quiet", url.toString(), clone], tmp);
      const before = await gitOk(["rev-parse", "HEAD"], clone);
      const other = path.join(tmp, "sb-other");
      await gitOk(["clone", "--quiet", url.toString(), other], tmp);
      await commitFile(other, "f.txt", "1\n", "one");
      const tip = await commitFile(other, "g/h.txt", "2\n", "two");
      await gitOk(["push", "--quiet", "origin", "HEAD:main"], other);
      started.length = 0;

      const res = await fetch(`${sb.gitUrl("acme", "p")}/git-upload-pack`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
          "content-type": "application/x-git-upload-pack-request",
        },
        body: uploadRequest([tip], [before], CAPS),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/x-git-upload-pack-result");
      const pack = readUploadAnswer(Buffer.from(await res.arrayBuffer()), (t) => t, "sandbox");
      assert.ok(pack instanceof Buffer);
      assert.equal(started.join("; "), "", "no upload-pack started");
      const indexed = await gitBytes(["index-pack", "--stdin", "--strict"], clone, pack);
      assert.equal(indexed.code, 0, indexed.err);
      await gitOk(["update-ref", "refs/remotes/origin/main", tip], clone);
      await gitOk(["fsck", "--strict", "--no-dangling"], clone);

      for (const version of ["2", "0"]) {
        const fetched = path.join(tmp, `sb-fetch-v${version}`);
        await gitOk(["clone", "--quiet", url.toString(), fetched], tmp);
        await commitFile(other, "f.txt", `v${version}\n`, `for v${version}`);
        await gitOk(["push", "--quiet", "origin", "HEAD:main"], other);
        await gitOk(["-c", `protocol.version=${version}`, "fetch", "--quiet", "origin"], fetched);
        assert.equal(await gitOk(["rev-parse", "origin/main"], fetched), await gitOk(["rev-parse", "HEAD"], other));
        await gitOk(["fsck", "--strict", "--no-dangling"], fetched);
      }
      assert.ok(
        started.some((s) => s.startsWith("upload-pack")),
        "git's own fetches are upload-pack's",
      );
    } finally {
      stop();
      await sb.stop();
    }
  });
});
