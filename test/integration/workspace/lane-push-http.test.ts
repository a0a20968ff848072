/**
 * The Lane's branch push spoken from the Run's process over smart HTTP (ADR 0478), against the
 * sandbox's real receive-pack over real HTTP: one `git pack-objects` and no `git push`; a lease the
 * remote moved, a ruleset's refusal and a stale record lease read exactly as `git push` reads
 * them (the same PushResult from both paths); a record along is all or none; what the remote
 * cannot be spoken to this way is left to git; the remote is `git fsck` clean after.
 */
import { strict as assert } from "node:assert";
import { rm } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { push } from "../../../src/adapters/git/lane-ops";
import { writeBlobObject, writeCommitObject, writeTreeObject } from "../../../src/adapters/git/loose-objects";
import { swapRef } from "../../../src/adapters/git/record-refs";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import type { Lane } from "../../../src/ports/workspace";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { commitFiles, git, makeTempDir, TEST_IDENTITY } from "../../support/git-fixtures";
import { octokitFor } from "../sandbox/support";
import { MemoryLog } from "../../unit/run/world";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

function basicAuthEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

/** The first word of a git argv that is not an option: the command. */
function command(args: string): string {
  return args.split(" ").find((a) => !a.startsWith("-") && !a.includes("=")) ?? "";
}

describe("workspace: a Lane's branch pushed over smart HTTP from the Run's process", function () {
  this.timeout(90_000);
  let sandbox: SandboxHandle;
  let dir: string;
  let bare: string;
  let url: string;
  let writer: string;
  let root: string;
  /** Over HTTP from this process. */
  let ctx: RepoContext & { log: MemoryLog };
  /** The same clone, always through `git push` (TICKET_RUNNER_GIT_HTTP=git). */
  let viaGit: RepoContext & { log: MemoryLog };
  let n = 0;

  function contextFor(remoteUrl: string, env: Record<string, string>): RepoContext & { log: MemoryLog } {
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY, token: writer });
    return {
      git: runner,
      root,
      remote: "origin",
      net: new RemoteGit(runner, { root, remote: "origin", url: remoteUrl, token: writer, env: { ...ISOLATED_GIT_ENV, ...env } }),
      log: new MemoryLog(),
    };
  }

  before(async () => {
    dir = await makeTempDir("tr-lane-push-http-");
    sandbox = await startSandbox({ quiet: true, seed: "none", dataDir: join(dir, "sandbox") });
    await sandbox.admin.createRepo({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n", "src/w.txt": "w\n".repeat(200) } });
    writer = (await sandbox.admin.addUser({ login: "runner", repos: { "acme/widgets": "write" } })).token;
    url = sandbox.gitUrl("acme", "widgets");
    bare = join(dir, "sandbox", "repos", "acme", "widgets.git");
    root = join(dir, "clone");
    await git(dir, ["clone", "-q", url, root], basicAuthEnv(writer));
    ctx = contextFor(url, {});
    viaGit = contextFor(url, { TICKET_RUNNER_GIT_HTTP: "git" });
    // Made once, here and not in a window counting the Run's git: the sandbox's kept
    // advertisements (ADR 0474), the clone's store and the private directory (remote-git.ts).
    await git(root, ["push", "-q", "--dry-run", "origin", "HEAD:refs/heads/warm"], basicAuthEnv(writer));
    await ctx.net.dir();
  });
  after(async () => {
    await ctx?.net.dispose();
    await viaGit?.net.dispose();
    await sandbox?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A Lane on a new branch of ticket `ticket`, cut from the fetched main, with one commit of its own. */
  async function laneWithCommit(ticket: number): Promise<{ lane: Lane; sha: string }> {
    const lane = { ticket, branch: `agent/${ticket}-lane`, path: join(dir, `lane-${ticket}`) };
    await git(root, ["worktree", "add", "-q", "-b", lane.branch, lane.path, "origin/main"]);
    const sha = await commitFiles(lane.path, { "src/w.txt": `${"w\n".repeat(200)}ticket ${ticket}\n`, [`t${ticket}.txt`]: "new\n" }, `implement #${ticket}`);
    return { lane, sha };
  }

  async function remoteRef(ref: string): Promise<string | null> {
    return git(bare, ["rev-parse", "--verify", "--quiet", ref]).catch(() => null);
  }

  async function counting<T>(fn: () => Promise<T>): Promise<{ value: T; gits: string[] }> {
    const gits: string[] = [];
    // The sandbox's own git (it writes a push's pack with index-pack, ADR 0482) is not the Run's.
    const stop = watchGitProcesses((args) => (args[0] === "--git-dir" && args[1] === bare ? undefined : gits.push(command(args.join(" ")))));
    try {
      return { value: await fn(), gits };
    } finally {
      stop();
    }
  }

  /** A record commit made as the Run makes one (loose-objects.ts), on `parent` when given. */
  async function record(text: string, parent?: string): Promise<string> {
    const blob = await writeBlobObject(ctx, text);
    const tree = await writeTreeObject(ctx, new Map([[`ticket-${++n}.json`, blob]]));
    return writeCommitObject(ctx, tree, parent ? [parent] : [], `record ${n}`);
  }

  it("pushes with one pack-objects and no git push, a thin pack on the branch's old tip next, and the remote is fsck clean", async () => {
    const { lane, sha } = await laneWithCommit(1);
    const first = await counting(() => push(ctx, lane));
    assert.deepEqual(first.value, { ok: true, detail: `Pushed \`${lane.branch}\` at ${sha.slice(0, 12)}.` });
    // `config`: the clone's runner reads a new worktree's driver names once (driver-overrides.ts),
    // beside the pack. The tips are read from the clone's files (ADR 0488): no `cat-file`.
    assert.deepEqual([...first.gits].sort(), ["config", "pack-objects", "update-ref"]);
    assert.equal(await remoteRef(`refs/heads/${lane.branch}`), sha);
    assert.equal(await git(root, ["rev-parse", `refs/remotes/origin/${lane.branch}`]), sha);
    assert.deepEqual(ctx.log.lines, [], "a push this process made says nothing");

    const next = await commitFiles(lane.path, { "src/w.txt": `${"w\n".repeat(200)}ticket 1, again\n` }, "more #1");
    const second = await counting(() => push(ctx, lane));
    assert.deepEqual(second.value, { ok: true, detail: `Pushed \`${lane.branch}\` at ${next.slice(0, 12)}.` });
    // The tracking ref now has a reflog: moved by writing its files (ADR 0494); its first setting was git's.
    assert.deepEqual(second.gits, ["pack-objects"]);
    assert.equal(await remoteRef(`refs/heads/${lane.branch}`), next);
    assert.deepEqual(await push(ctx, lane), { ok: true, detail: `\`${lane.branch}\` is already on the remote at ${next.slice(0, 12)}.` });
    await git(bare, ["fsck", "--strict", "--no-dangling"]);
  });

  it("a lease the remote moved is refused, nothing moves, and the PushResult is git's", async () => {
    const { lane } = await laneWithCommit(2);
    assert.equal((await push(ctx, lane)).ok, true);
    // Another Host moves the branch on; this Host's Lane goes on from its own tip.
    const theirs = await git(bare, ["commit-tree", "-p", `refs/heads/${lane.branch}`, "-m", "theirs", `refs/heads/${lane.branch}^{tree}`]);
    await git(bare, ["update-ref", `refs/heads/${lane.branch}`, theirs]);
    await commitFiles(lane.path, { "ours.txt": "ours\n" }, "ours #2");
    const http = await counting(() => push(ctx, lane));
    const byGit = await push(viaGit, lane);
    assert.deepEqual(
      http.gits.filter((g) => g === "push"),
      [],
    );
    assert.equal(http.value.ok, false);
    assert.deepEqual(http.value, byGit);
    assert.match(http.value.detail, /\[rejected\] \(stale info\)/);
    assert.equal(await remoteRef(`refs/heads/${lane.branch}`), theirs);
    assert.ok(!http.value.detail.includes(writer));
  });

  it("a branch the remote already has at the new tip is pushed, as git finds it up to date before its lease", async () => {
    const { lane, sha } = await laneWithCommit(7);
    assert.equal((await push(ctx, lane)).ok, true);
    // This Host forgets what it saw: the lease now expects no branch, and the remote has it at the tip.
    await git(root, ["update-ref", "-d", `refs/remotes/origin/${lane.branch}`]);
    const byGit = await push(viaGit, lane);
    await git(root, ["update-ref", "-d", `refs/remotes/origin/${lane.branch}`]);
    const http = await counting(() => push(ctx, lane));
    assert.deepEqual(byGit, { ok: true, detail: `Pushed \`${lane.branch}\` at ${sha.slice(0, 12)}.` });
    assert.deepEqual(http.value, byGit);
    assert.deepEqual(http.gits, ["update-ref"]);
    assert.equal(await git(root, ["rev-parse", `refs/remotes/origin/${lane.branch}`]), sha);
  });

  it("a record along goes with the branch or not at all, and a stale record lease pushes the branch alone, as git's path does", async () => {
    const { lane, sha } = await laneWithCommit(3);
    const ref = "refs/ticket-runner/state/3";
    const tip = await record('{"state":"claimed"}\n');
    assert.equal(await swapRef(ctx, ref, tip, null), "pushed");

    // The branch's lease does not hold (the remote has a branch this Host never saw): neither moves.
    const squatter = await git(bare, ["commit-tree", "-m", "squat", "refs/heads/main^{tree}"]);
    await git(bare, ["update-ref", `refs/heads/${lane.branch}`, squatter]);
    const recorded = await record('{"state":"implemented"}\n', tip);
    const refused = await push(ctx, lane, { ref, commit: recorded, expected: tip });
    assert.equal(refused.ok, false);
    assert.equal(refused.recorded, undefined);
    assert.deepEqual([await remoteRef(`refs/heads/${lane.branch}`), await remoteRef(ref)], [squatter, tip]);
    await git(bare, ["update-ref", "-d", `refs/heads/${lane.branch}`]);

    // The record's lease does not hold: the branch goes alone, the record stays.
    const stale = await record('{"state":"stale"}\n');
    const alone = await counting(() => push(ctx, lane, { ref, commit: recorded, expected: stale }));
    assert.deepEqual(alone.value, { ok: true, detail: `Pushed \`${lane.branch}\` at ${sha.slice(0, 12)}.` });
    assert.deepEqual(
      alone.gits.filter((g) => g === "push"),
      [],
    );
    assert.deepEqual([await remoteRef(`refs/heads/${lane.branch}`), await remoteRef(ref)], [sha, tip]);

    // Both hold: both move in one push, the record's objects in the branch's pack.
    const next = await commitFiles(lane.path, { "more.txt": "more\n" }, "more #3");
    const both = await counting(() => push(ctx, lane, { ref, commit: recorded, expected: tip }));
    assert.deepEqual(both.value, { ok: true, detail: `Pushed \`${lane.branch}\` at ${next.slice(0, 12)}.`, recorded: true });
    assert.deepEqual(both.gits, ["pack-objects"]);
    assert.deepEqual([await remoteRef(`refs/heads/${lane.branch}`), await remoteRef(ref)], [next, recorded]);
    await git(bare, ["fsck", "--strict", "--no-dangling"]);
  });

  it("a ruleset's refusal reads the same as from git: the same typed refusal, nothing moved", async () => {
    const { lane } = await laneWithCommit(4);
    assert.equal((await push(ctx, lane)).ok, true);
    const before = await commitFiles(lane.path, { "late.txt": "late\n" }, "late #4");
    const admin = octokitFor(sandbox.apiUrl, sandbox.adminToken);
    await admin.request("POST /repos/{owner}/{repo}/rulesets", {
      owner: "acme",
      repo: "widgets",
      name: "agents may not push",
      target: "branch",
      enforcement: "active",
      conditions: { ref_name: { include: ["refs/heads/agent/4-*"], exclude: [] } },
      rules: [{ type: "update" }],
    });
    const http = await counting(() => push(ctx, lane));
    const byGit = await push(viaGit, lane);
    assert.deepEqual(
      http.gits.filter((g) => g === "push"),
      [],
    );
    assert.equal(http.value.ok, false);
    assert.equal(http.value.refused?.reason, "rule-violation");
    assert.deepEqual(http.value.refused, byGit.refused);
    assert.match(http.value.detail, /GH013: Repository rule violations found for refs\/heads\/agent\/4-lane/);
    assert.match(http.value.detail, /\[remote rejected\] \(pre-receive hook declined\)/);
    assert.notEqual(await remoteRef(`refs/heads/${lane.branch}`), before);
    assert.ok(!http.value.detail.includes(writer));
    // A refusal over HTTP is no push left to git; a setting that sends every push to git is said once a Run, however many pushes.
    assert.deepEqual(ctx.log.lines, []);
    assert.deepEqual(viaGit.log.lines, ['info git push instead of smart HTTP from the Run\'s process: TICKET_RUNNER_GIT_HTTP=git {"talk":"push"}']);
  });

  it("a shallow clone's push is left to git push, which pushes, and the Run's log says so", async () => {
    const shallowRoot = join(dir, "shallow");
    await git(dir, ["clone", "-q", "--depth", "1", url, shallowRoot], basicAuthEnv(writer));
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY, token: writer });
    const shallow: RepoContext = {
      git: runner,
      root: shallowRoot,
      remote: "origin",
      net: new RemoteGit(runner, { root: shallowRoot, remote: "origin", url, token: writer, env: ISOLATED_GIT_ENV }),
    };
    const log = new MemoryLog();
    shallow.log = log;
    try {
      const lane = { ticket: 6, branch: "agent/6-shallow", path: join(dir, "lane-6") };
      await git(shallowRoot, ["worktree", "add", "-q", "-b", lane.branch, lane.path, "origin/main"]);
      const sha = await commitFiles(lane.path, { "s.txt": "s\n" }, "shallow #6");
      const pushed = await counting(() => push(shallow, lane));
      assert.deepEqual(pushed.value, { ok: true, detail: `Pushed \`${lane.branch}\` at ${sha.slice(0, 12)}.` });
      assert.ok(pushed.gits.includes("push") && !pushed.gits.includes("pack-objects"), pushed.gits.join(", "));
      // One line in the Run's log says git pushed, and why.
      assert.deepEqual(log.lines, ['info git push instead of smart HTTP from the Run\'s process: a shallow clone {"talk":"push"}']);
      assert.equal(await remoteRef(`refs/heads/${lane.branch}`), sha);
      await git(bare, ["fsck", "--strict", "--no-dangling"]);
    } finally {
      await shallow.net.dispose();
    }
  });

  it("a remote this process cannot speak to is left to git push, which pushes, and the Run's log says why", async () => {
    // In front of the sandbox: the Run's own requests get an answer that is not smart HTTP; git's go through.
    const proxy: Server = createServer((req, res) => {
      if (/ticket-runner/.test(String(req.headers["user-agent"]))) {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("not git\n");
        return;
      }
      const to = new URL(req.url ?? "/", url);
      const out = request(to, { method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const proxied = contextFor(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}${new URL(url).pathname}`, {});
    try {
      const { lane, sha } = await laneWithCommit(5);
      const pushed = await counting(() => push(proxied, lane));
      assert.deepEqual(pushed.value, { ok: true, detail: `Pushed \`${lane.branch}\` at ${sha.slice(0, 12)}.` });
      assert.ok(pushed.gits.includes("push"), pushed.gits.join(", "));
      assert.ok(!pushed.gits.includes("pack-objects"), pushed.gits.join(", "));
      assert.deepEqual(proxied.log.lines, ['info git push instead of smart HTTP from the Run\'s process: info/refs answered text/plain {"talk":"push"}']);
      assert.equal(await remoteRef(`refs/heads/${lane.branch}`), sha);
      await git(bare, ["fsck", "--strict", "--no-dangling"]);
    } finally {
      await proxied.net.dispose();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});
