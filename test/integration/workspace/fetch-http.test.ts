/**
 * Fetches spoken from the Run's own process over smart HTTP (ADR 0476), against the sandbox's real
 * `git upload-pack` over real HTTP: what lands is git's own (`git fsck --strict` once the private
 * directory is gone), a pack of 100 objects or more goes through index-pack and a smaller one is
 * proved and written by this process (ADR 0501), a fetch with nothing new starts no git, anything
 * unusual is left to git, and a pack that lacks an object sets no ref.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { FLUSH, pktLine } from "../../../src/adapters/git/pkt-line";
import { fetchRecords, lsRemoteRefs } from "../../../src/adapters/git/record-refs";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import { fetchRef, lsRemoteBranch } from "../../../src/adapters/git/repo";
import { Failure } from "../../../src/core/errors";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { commitFiles, git, makeTempDir, TEST_IDENTITY } from "../../support/git-fixtures";
import { MemoryLog } from "../../unit/run/world";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

function basicAuthEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

/** `n` new files: over git's unpack limit (100 objects) a pack is kept whole, under it unpacked loose. */
function files(tag: string, n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${tag}/f${i}.txt`, `${tag} ${i}\n`]));
}

/** The git subcommand of each call (past the `-c` options). */
function commands(gits: string[]): string[] {
  return gits.map((g) => {
    const args = g.split(" ");
    for (let i = 0; i < args.length; i++) {
      if (args[i] === "-c") i++;
      else return args[i]!;
    }
    return "";
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

describe("workspace: fetches over smart HTTP from the Run's process (ADR 0476)", function () {
  this.timeout(90_000);
  let sandbox: SandboxHandle;
  let dir: string;
  let url: string;
  let writer: string;
  let root: string;
  let upstream: string;
  let ctx: RepoContext & { log: MemoryLog };
  const servers: Server[] = [];

  function contextFor(at: string, remoteUrl: string, extraEnv: Record<string, string> = {}): RepoContext & { log: MemoryLog } {
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY, token: writer });
    return {
      git: runner,
      root: at,
      remote: "origin",
      net: new RemoteGit(runner, { root: at, remote: "origin", url: remoteUrl, token: writer, env: { ...ISOLATED_GIT_ENV, ...extraEnv } }),
      log: new MemoryLog(),
    };
  }

  before(async () => {
    dir = await makeTempDir("tr-fetch-http-");
    sandbox = await startSandbox({ quiet: true, seed: "none", dataDir: join(dir, "sandbox") });
    await sandbox.admin.createRepo({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n" } });
    writer = (await sandbox.admin.addUser({ login: "runner", repos: { "acme/widgets": "write" } })).token;
    url = sandbox.gitUrl("acme", "widgets");
    root = join(dir, "clone");
    upstream = join(dir, "upstream");
    await git(dir, ["clone", "-q", url, root], basicAuthEnv(writer));
    await git(dir, ["clone", "-q", url, upstream], basicAuthEnv(writer));
    ctx = contextFor(root, url);
  });
  after(async () => {
    for (const s of servers) s.close();
    await ctx?.net.dispose();
    await sandbox?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function push(...refspecs: string[]): Promise<void> {
    await git(upstream, ["push", "-q", "--force", "origin", ...refspecs], basicAuthEnv(writer));
  }

  /** `fn`'s result and the git processes the Run's side of this process started meanwhile (the in-process sandbox's services left out). */
  async function counting<T>(fn: () => Promise<T>): Promise<{ value: T; gits: string[] }> {
    const gits: string[] = [];
    const stop = watchGitProcesses((args) => {
      if (!args.includes("--stateless-rpc") && !args.includes("--http-backend-info-refs")) gits.push(args.join(" "));
    });
    try {
      return { value: await fn(), gits: commands(gits) };
    } finally {
      stop();
    }
  }

  async function assertWhole(at: string): Promise<void> {
    const packs = join(at, ".git", "objects", "pack");
    assert.deepEqual(existsSync(packs) ? readdirSync(packs).filter((n) => n.endsWith(".keep")) : [], [], "no .keep left once the ref is set");
    await git(at, ["fsck", "--strict", "--no-dangling", "--no-progress"]);
  }

  it("fetches a pack of 100 objects or more through index-pack and a few with no git process at all, with no git fetch, and the history is the clone's own", async () => {
    await commitFiles(upstream, files("big", 150), "a pack's worth");
    await push("HEAD:main");
    await ctx.net.dir();
    const big = await counting(() => fetchRef(ctx, "main", "refs/remotes/origin/main"));
    assert.equal(big.value, "fetched");
    assert.deepEqual(big.gits, ["index-pack", "rev-list", "update-ref"]);

    const tip = await commitFiles(upstream, { "small.txt": "loose\n" }, "a few loose objects");
    await push("HEAD:main");
    const small = await counting(() => fetchRef(ctx, "main", "refs/remotes/origin/main"));
    assert.equal(small.value, "fetched");
    // The tracking ref, loose with a reflog by now and to loose objects, is written to its files (ADR 0494).
    // The pack is proved connected and written loose here, its parent and trees read from the kept pack (ADR 0501): no git at all.
    assert.deepEqual(small.gits, []);

    // The next one's parent is loose: the same.
    const next = await commitFiles(upstream, { "small.txt": "loose again\n", "big/more/f.txt": "deeper\n" }, "written by the Run's process");
    await push("HEAD:main");
    assert.deepEqual(await counting(() => fetchRef(ctx, "main", "refs/remotes/origin/main")), { value: "fetched", gits: [] });

    await ctx.net.dispose();
    assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), next);
    await git(root, ["cat-file", "-e", `${tip}:big/f149.txt`]);
    await git(root, ["cat-file", "-e", `${next}:big/more/f.txt`]);
    await assertWhole(root);
  });

  it("a fetch with nothing new starts no git process and sends no request but the advertisement", async () => {
    await fetchRef(ctx, "main", "refs/remotes/origin/main");
    const again = await counting(() => fetchRef(ctx, "main", "refs/remotes/origin/main"));
    assert.deepEqual(again, { value: "fetched", gits: [] });
    // A fresh clone's refs are packed: the packed copy is read as well.
    await git(root, ["pack-refs", "--all"]);
    assert.deepEqual(await counting(() => fetchRef(ctx, "main", "refs/remotes/origin/main")), { value: "fetched", gits: [] });
    const listed = await counting(() => lsRemoteBranch(ctx, "main"));
    assert.deepEqual(listed, { value: await git(root, ["rev-parse", "refs/remotes/origin/main"]), gits: [] });
    assert.deepEqual(await counting(() => lsRemoteBranch(ctx, "no-such-branch")), { value: null, gits: [] });
  });

  it("a forced rewrite of the remote branch lands", async () => {
    await git(upstream, ["checkout", "-q", "-b", "rewritten"]);
    await commitFiles(upstream, { "a.txt": "a\n" }, "a");
    await push("rewritten");
    assert.equal(await fetchRef(ctx, "rewritten", "refs/remotes/origin/rewritten"), "fetched");
    await git(upstream, ["reset", "-q", "--hard", "HEAD~1"]);
    const rewritten = await commitFiles(upstream, files("other", 120), "rewritten");
    await push("rewritten");
    assert.equal(await fetchRef(ctx, "rewritten", "refs/remotes/origin/rewritten"), "fetched");
    assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/rewritten"]), rewritten);
    await git(upstream, ["checkout", "-q", "main"]);
    await assertWhole(root);
  });

  it("a branch the remote no longer has deletes the stale local copy", async () => {
    await git(root, ["update-ref", "refs/remotes/origin/gone", "HEAD"]);
    const gone = await counting(() => fetchRef(ctx, "gone", "refs/remotes/origin/gone"));
    assert.deepEqual(gone, { value: "missing", gits: ["update-ref"] });
    await assert.rejects(git(root, ["rev-parse", "--verify", "--quiet", "refs/remotes/origin/gone"]));
    // No local copy either: nothing to delete, no process.
    assert.deepEqual(await counting(() => fetchRef(ctx, "gone", "refs/remotes/origin/gone")), { value: "missing", gits: [] });
  });

  it("two Lanes fetching at once, and the records beside them, lose no object", async () => {
    await git(upstream, ["checkout", "-q", "-B", "feature"]);
    for (let round = 0; round < 3; round++) {
      await git(upstream, ["checkout", "-q", "main"]);
      const main = await commitFiles(upstream, files(`m${round}`, round === 1 ? 110 : 5), `main ${round}`);
      await git(upstream, ["checkout", "-q", "feature"]);
      const feature = await commitFiles(upstream, files(`f${round}`, round === 2 ? 105 : 3), `feature ${round}`);
      const record = await commitFiles(upstream, files(`r${round}`, 4), `record ${round}`);
      await git(upstream, ["reset", "-q", "--hard", "HEAD~1"]);
      await push("main", "feature", `${record}:refs/ticket-runner/state/${round + 1}`);
      const listed = await lsRemoteRefs(ctx, [`refs/ticket-runner/state/${round + 1}`]);
      const results = await Promise.all([
        fetchRef(ctx, "main", "refs/remotes/origin/main"),
        fetchRef(ctx, "feature", "refs/remotes/origin/feature"),
        fetchRef(ctx, "main", "refs/remotes/origin/main"),
        fetchRecords(ctx, listed),
      ]);
      assert.deepEqual(results, ["fetched", "fetched", "fetched", "ok"]);
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), main);
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/feature"]), feature);
      await git(root, ["cat-file", "-e", `${record}:r${round}/f3.txt`]);
    }
    await git(upstream, ["checkout", "-q", "main"]);
    await ctx.net.dispose();
    await assertWhole(root);
  });

  it("records: fetched with one request and no git fetch, then found with no process; a record the remote cannot serve any more is 'moved'", async () => {
    const record = await commitFiles(upstream, { "ticket-9.json": '{"state":"claimed"}\n' }, "record 9");
    await git(upstream, ["reset", "-q", "--hard", "HEAD~1"]);
    await push(`${record}:refs/ticket-runner/state/9`);
    const listed = await lsRemoteRefs(ctx, ["refs/ticket-runner/state/9"]);
    await ctx.net.dir();
    const fetched = await counting(() => fetchRecords(ctx, listed));
    // Its parent the tracking ref's commit: proved and written in this process (ADR 0501).
    assert.deepEqual(fetched, { value: "ok", gits: [] });
    await git(root, ["cat-file", "-e", `${record}:ticket-9.json`]);
    // Its objects are here now, loose: read from their files, no process.
    assert.deepEqual(await counting(() => fetchRecords(ctx, listed)), { value: "ok", gits: [] });

    // Listed a moment ago, gone since, and the remote has no such object at all (never pushed here).
    const other = await commitFiles(upstream, { "ticket-9.json": '{"state":"released"}\n' }, "another record 9");
    await git(upstream, ["reset", "-q", "--hard", "HEAD~1"]);
    const stale = new Map([["refs/ticket-runner/state/9", other]]);
    assert.equal(await fetchRecords(ctx, stale), "moved");
  });

  it("a neighbour Lane's half-made worktree (its HEAD the null id, or an object not there yet) fails no fetch's connectivity check", async () => {
    // What `git worktree add` has written at the moment before its checkout: the worktree's record, its HEAD the null id.
    const worktrees = join(root, ".git", "worktrees");
    const neighbours = { "neighbour-null": "0".repeat(40), "neighbour-missing": "1234567890abcdef1234567890abcdef12345678" };
    for (const [id, head] of Object.entries(neighbours)) {
      await mkdir(join(worktrees, id), { recursive: true });
      await writeFile(join(worktrees, id, "gitdir"), `${join(dir, id, ".git")}\n`);
      await writeFile(join(worktrees, id, "commondir"), "../..\n");
      await writeFile(join(worktrees, id, "HEAD"), `${head}\n`);
    }
    try {
      // A pack: its objects proved connected before the ref is set, here in this process, which reads no worktree's HEAD (ADR 0501).
      const tip = await commitFiles(upstream, { "beside-a-neighbour.txt": "fetched\n" }, "fetched beside a half-made worktree");
      await push("HEAD:main");
      const fetched = await counting(() => fetchRef(ctx, "main", "refs/remotes/origin/main"));
      assert.deepEqual(fetched, { value: "fetched", gits: [] });
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), tip);

      // A loose commit the clone has already: its history proved whole, no pack.
      const tree = await git(root, ["rev-parse", `${tip}^{tree}`]);
      const loose = await git(root, ["commit-tree", tree, "-p", tip, "-m", "made here, pushed, then fetched"]);
      await git(root, ["push", "-q", url, `${loose}:refs/heads/neighbour-proved`], basicAuthEnv(writer));
      const proved = await counting(() => fetchRef(ctx, "neighbour-proved", "refs/remotes/origin/neighbour-proved"));
      assert.deepEqual(proved, { value: "fetched", gits: ["rev-list", "update-ref"] });
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/neighbour-proved"]), loose);
    } finally {
      for (const id of Object.keys(neighbours)) await rm(join(worktrees, id), { recursive: true, force: true });
    }
  });

  it("leaves the fetch to git when the remote is not one it can fetch from (here: a dumb info/refs), and git fetches, and the Run's log says why", async () => {
    // Forwards everything to the sandbox, except that the advertisement this process asks for (no Git-Protocol header) reads as a dumb server's.
    const target = new URL(url);
    const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "GET" && req.url?.includes("info/refs") && !req.headers["git-protocol"]) {
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.end("0000000000000000000000000000000000000000\trefs/heads/main\n");
        return;
      }
      const forwarded = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forwarded);
    });
    servers.push(proxy);
    const via = `${await listen(proxy)}/acme/widgets.git`;
    const viaCtx = contextFor(root, via);
    try {
      const tip = await commitFiles(upstream, { "by-git.txt": "git\n" }, "fetched by git");
      await push("HEAD:main");
      const fetched = await counting(() => fetchRef(viaCtx, "main", "refs/remotes/origin/main"));
      assert.equal(fetched.value, "fetched");
      assert.ok(fetched.gits.includes("fetch"), `git fetched: ${fetched.gits.join(", ")}`);
      assert.equal(await git(root, ["rev-parse", "refs/remotes/origin/main"]), tip);
      // One line in the Run's log: git fetched, and why.
      assert.deepEqual(viaCtx.log.lines, ['info git fetch instead of smart HTTP from the Run\'s process: info/refs answered text/plain {"talk":"fetch"}']);
    } finally {
      await viaCtx.net.dispose();
    }
  });

  it("a setting that leaves every fetch to git is one line in the Run's log, once a Run, with no token; fetches this process made say nothing", async () => {
    assert.ok(!ctx.log.lines.some((l) => l.includes("instead of smart HTTP")), ctx.log.lines.join("\n"));
    const viaGit = contextFor(root, url, { TICKET_RUNNER_GIT_HTTP: "git" });
    try {
      const tip = await commitFiles(upstream, { "by-setting.txt": "git\n" }, "fetched by git, as set");
      await push("HEAD:main");
      assert.equal(await fetchRef(viaGit, "main", "refs/remotes/origin/main"), "fetched");
      assert.equal(await fetchRef(viaGit, "main", "refs/remotes/origin/main"), "fetched");
      assert.equal(await lsRemoteBranch(viaGit, "main"), tip);
      assert.deepEqual(viaGit.log.lines, [
        'info git fetch instead of smart HTTP from the Run\'s process: TICKET_RUNNER_GIT_HTTP=git {"talk":"fetch"}',
        'info git ls-remote instead of smart HTTP from the Run\'s process: TICKET_RUNNER_GIT_HTTP=git {"talk":"ls-remote"}',
      ]);
      assert.ok(!viaGit.log.lines.some((l) => l.includes(writer)));
    } finally {
      await viaGit.net.dispose();
    }
  });

  it("refuses a pack that lacks an object: no ref is set, the error names the remote and not the token", async () => {
    // A remote of its own, served by a tiny server whose upload-pack leaves a blob out of the pack.
    const bare = join(dir, "served.git");
    await git(dir, ["init", "-q", "--bare", "--initial-branch=main", bare]);
    const work = join(dir, "served-work");
    await git(dir, ["clone", "-q", bare, work]);
    const base = await commitFiles(work, { "base.txt": "base\n" }, "base");
    await git(work, ["push", "-q", "origin", "main"]);
    const mine = join(dir, "served-clone");
    await git(dir, ["clone", "-q", bare, mine]);
    const tip = await commitFiles(work, { "kept.txt": "kept\n", "left-out.txt": "left out\n" }, "one blob short");
    await git(work, ["push", "-q", "origin", "main"]);
    const leftOut = await git(work, ["rev-parse", `${tip}:left-out.txt`]);
    const objects = (await git(bare, ["rev-list", "--objects", tip, `^${base}`]))
      .split("\n")
      .map((l) => l.split(" ")[0]!)
      .filter((sha) => sha !== leftOut);
    const short = await packOf(bare, objects);

    const server = createServer((req, res) => {
      void (async () => {
        if (req.method === "GET") {
          const adv = await git(bare, ["upload-pack", "--http-backend-info-refs", bare]);
          res.writeHead(200, { "Content-Type": "application/x-git-upload-pack-advertisement" });
          res.end(Buffer.concat([pktLine("# service=git-upload-pack\n"), FLUSH, Buffer.from(adv, "latin1")]));
          return;
        }
        await body(req);
        const bands: Buffer[] = [pktLine("NAK\n")];
        for (let at = 0; at < short.length; at += 60_000) bands.push(pktLine(Buffer.concat([Buffer.from([1]), short.subarray(at, at + 60_000)])));
        bands.push(FLUSH);
        res.writeHead(200, { "Content-Type": "application/x-git-upload-pack-result" });
        res.end(Buffer.concat(bands));
      })();
    });
    servers.push(server);
    const served = contextFor(mine, `${await listen(server)}/served.git`);
    try {
      const before = await git(mine, ["rev-parse", "refs/remotes/origin/main"]);
      const refused = await fetchRef(served, "main", "refs/remotes/origin/main").then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(refused instanceof Failure, `refused: ${String(refused)}`);
      assert.equal(refused.reason, "git");
      assert.match(refused.message, /does not hold every object/);
      assert.ok(!refused.message.includes(writer), "no token in the error");
      assert.equal(await git(mine, ["rev-parse", "refs/remotes/origin/main"]), before, "no ref was set");
    } finally {
      await served.net.dispose();
    }
  });
});

/** A pack (`git pack-objects --stdout`) of exactly `objects`, from `repo`: bytes, which the fixture's git() does not give. */
function packOf(repo: string, objects: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["pack-objects", "--stdout", "-q"], {
      cwd: repo,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`git pack-objects exited ${code}`))));
    child.stdin.end(`${objects.join("\n")}\n`);
  });
}
