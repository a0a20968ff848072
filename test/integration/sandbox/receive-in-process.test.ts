/**
 * A push taken in the sandbox's process (ADR 0482) against real `git receive-pack --stateless-rpc`
 * given the same request body in a copy of the same repository: where the sandbox takes it, the
 * same answer byte for byte and the same refs after; where it does not (a stale lease, an atomic
 * push with one command refused, a missing object, a hidden ref), nothing changed, so receive-pack
 * answers it as before. Then real `git push` over HTTP to the sandbox, with no receive-pack started.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CommitLookups } from "../../../src/sandbox/commit-lookup";
import { RECEIVE_PACK_CONFIG, commitInitial, configEnv, gitEnv, initBare } from "../../../src/sandbox/git";
import { knownConnected, unmarkConnected } from "../../../src/sandbox/objects-connected";
import { parsePushCommands } from "../../../src/sandbox/push-commands";
import { receiveInProcess } from "../../../src/sandbox/receive-in-process";
import { receiveSetupOf } from "../../../src/sandbox/receive-setup";
import { watchServices } from "../../../src/sandbox/service-watch";
import { startSandbox } from "../../../src/sandbox/start";
import { commitFile, gitOk } from "./support";

const ZERO = "0".repeat(40);
const GIT_PUSH_CAPS = "report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5";

/** Runs git with `input` on stdin; its stdout as bytes. */
function gitBytes(args: string[], cwd: string, input: Buffer | string = "", env: NodeJS.ProcessEnv = gitEnv()): Promise<{ code: number; out: Buffer }> {
  return new Promise((resolve) => {
    const child = execFile("git", args, { cwd, env, encoding: "buffer", maxBuffer: 64 * 1024 * 1024 }, (e, out) =>
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out: out as Buffer }),
    );
    child.stdin?.end(input);
  });
}

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
  });

  after(async () => {
    await commits?.stop();
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
    return receiveInProcess({ gitDir, body: { path: file, size: body.length }, request, setup: receiveSetupOf(listing), hook: false, commits });
  }

  /** The same answer and the same refs as receive-pack's. */
  async function sameAsReceivePack(body: Buffer, packed = false): Promise<string> {
    const [a, b] = await twoCopies(packed);
    const ours = await inProcess(a, body);
    const theirs = await receivePack(b, body);
    assert.ok(ours.answer, "taken in process");
    assert.equal(ours.answer.toString("latin1"), theirs.toString("latin1"));
    assert.equal(await refs(a), await refs(b));
    const fsck = await gitBytes(["--git-dir", a, "fsck", "--connectivity-only", "--no-dangling"], tmp);
    assert.equal(fsck.code, 0, "every object the refs reach is there");
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

  it("git push over HTTP to the sandbox: create, update, force, delete and atomic with no receive-pack; the effects as before", async () => {
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
        started.filter((s) => s.startsWith("receive-pack")),
        [],
        "no receive-pack started",
      );
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
        started.some((s) => s.startsWith("receive-pack")),
        "receive-pack took it",
      );
    } finally {
      stop();
      await sb.stop();
    }
  });
});
