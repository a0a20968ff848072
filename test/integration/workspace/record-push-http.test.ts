/**
 * Record pushes and ref listings spoken from the Run's own process over smart HTTP (ADR 0470),
 * against the sandbox's real `git receive-pack` / `upload-pack` over real HTTP: no git process is
 * started for them, leases hold as `git push --force-with-lease` holds them, an atomic push is all
 * or none, a refusal is a clear error without the token, what lands is git's own (`git fsck`), and
 * the listing is `git ls-remote`'s for the same patterns.
 */
import { strict as assert } from "node:assert";
import { rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { writeBlobObject, writeCommitObject, writeTreeObject } from "../../../src/adapters/git/loose-objects";
import { lsRemoteRefs, swapRef, swapRefs } from "../../../src/adapters/git/record-refs";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import { pushOverHttp } from "../../../src/adapters/git/record-push-http";
import { pktLine } from "../../../src/adapters/git/pkt-line";
import { GitHttpFailure, SmartHttpClient, parseAdvertisement } from "../../../src/adapters/git/smart-http-client";
import type { SmartService } from "../../../src/adapters/git/smart-http-client";
import { pushWithLease } from "../../../src/adapters/git/snapshot";
import { Failure } from "../../../src/core/errors";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { git, makeTempDir, TEST_IDENTITY } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

function basicAuthEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

describe("workspace: record pushes and listings over smart HTTP from the Run's process", function () {
  this.timeout(60_000);
  let sandbox: SandboxHandle;
  let dir: string;
  let bare: string;
  let url: string;
  let writer: string;
  let ctx: RepoContext;
  let n = 0;

  before(async () => {
    dir = await makeTempDir("tr-push-http-");
    sandbox = await startSandbox({ quiet: true, seed: "none", dataDir: join(dir, "sandbox") });
    await sandbox.admin.createRepo({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n" } });
    writer = (await sandbox.admin.addUser({ login: "runner", repos: { "acme/widgets": "write" } })).token;
    url = sandbox.gitUrl("acme", "widgets");
    bare = join(dir, "sandbox", "repos", "acme", "widgets.git");
    const root = join(dir, "clone");
    await git(dir, ["clone", "-q", url, root], basicAuthEnv(writer));
    // The sandbox (in this process) makes what it keeps of the repository's advertisements (ADR
    // 0474) with git of its own on their first request: here, not in a window counting the Run's git.
    await git(root, ["push", "-q", "--dry-run", "origin", "HEAD:refs/heads/warm"], basicAuthEnv(writer));
    // And of upload-pack's v0 advertisement (ADR 0479), the one the Run's listings ask for.
    await git(root, ["-c", "protocol.version=0", "ls-remote", "-q", "origin"], basicAuthEnv(writer));
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY, token: writer });
    ctx = { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin", url, token: writer, env: ISOLATED_GIT_ENV }) };
  });
  after(async () => {
    await ctx?.net.dispose();
    await sandbox?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A record commit made as the Run makes one (loose-objects.ts), on `parent` when given. */
  async function record(text: string, parent?: string): Promise<string> {
    const blob = await writeBlobObject(ctx, text);
    const extra = await writeBlobObject(ctx, `transcript ${++n}\n`);
    const tree = await writeTreeObject(
      ctx,
      new Map([
        ["ticket-1.json", blob],
        [`ticket-1/run-${n}/implement.jsonl`, extra],
      ]),
    );
    return writeCommitObject(ctx, tree, parent ? [parent] : [], `record ${n}`);
  }

  /** `fn`'s result and the git processes this process started meanwhile. */
  async function counting<T>(fn: () => Promise<T>): Promise<{ value: T; gits: string[] }> {
    const gits: string[] = [];
    // The sandbox's own git (it writes a push's pack with index-pack, ADR 0482) is not the Run's.
    const stop = watchGitProcesses((args) => (args[0] === "--git-dir" && args[1] === bare ? undefined : gits.push(args.join(" "))));
    try {
      return { value: await fn(), gits };
    } finally {
      stop();
    }
  }

  async function remoteRef(ref: string): Promise<string | null> {
    return git(bare, ["rev-parse", "--verify", "--quiet", ref]).catch(() => null);
  }

  it("creates, updates and deletes a record ref under its lease with no git process, and git reads what landed", async () => {
    const ref = "refs/ticket-runner/state/1";
    const first = await record('{"state":"claimed"}\n');
    const created = await counting(() => swapRef(ctx, ref, first, null));
    assert.deepEqual(created, { value: "pushed", gits: [] });
    assert.equal(await remoteRef(ref), first);

    const second = await record('{"state":"implemented"}\n', first);
    const updated = await counting(() => swapRef(ctx, ref, second, first));
    assert.deepEqual(updated, { value: "pushed", gits: [] });
    assert.equal(await remoteRef(ref), second);
    assert.equal(await git(bare, ["cat-file", "-p", `${ref}:ticket-1.json`]), '{"state":"implemented"}');
    assert.equal(await git(bare, ["rev-parse", `${ref}~1`]), first);
    await git(bare, ["fsck", "--strict", "--no-dangling"]);

    const deleted = await counting(() => swapRef(ctx, ref, null, second));
    assert.deepEqual(deleted, { value: "pushed", gits: [] });
    assert.equal(await remoteRef(ref), null);
  });

  it("pushes a record branch (the Run lock's) over HTTP: the only git left is the local tracking ref's update", async () => {
    const lock = await record('{"lock":1}\n');
    const pushed = await counting(() => pushWithLease(ctx, "ticket-runner/lock", lock, null));
    assert.equal(pushed.value, "pushed");
    assert.deepEqual(
      pushed.gits.map((g) => g.split(" ").find((a) => !a.startsWith("-") && !a.includes("="))),
      ["update-ref"],
    );
    assert.equal(await remoteRef("refs/heads/ticket-runner/lock"), lock);
    assert.equal(await pushWithLease(ctx, "ticket-runner/lock", await record('{"lock":2}\n', lock), null), "lost");
    assert.equal(await remoteRef("refs/heads/ticket-runner/lock"), lock);
  });

  it("a lease that no longer holds is a lost race, and nothing moves", async () => {
    const ref = "refs/ticket-runner/state/2";
    const theirs = await record('{"by":"another host"}\n');
    assert.equal(await swapRef(ctx, ref, theirs, null), "pushed");
    const ours = await record('{"by":"us"}\n');
    // "Must not exist", and it does; then a stale tip.
    assert.deepEqual(await counting(() => swapRef(ctx, ref, ours, null)), { value: "lost", gits: [] });
    const old = await record('{"old":1}\n');
    assert.deepEqual(await counting(() => swapRef(ctx, ref, ours, old)), { value: "lost", gits: [] });
    assert.deepEqual(await counting(() => swapRef(ctx, ref, null, ours)), { value: "lost", gits: [] });
    assert.equal(await remoteRef(ref), theirs);
  });

  it("an atomic push of two refs is all or none", async () => {
    const a = "refs/ticket-runner/state/3";
    const b = "refs/ticket-runner/state/4";
    const stale = await record('{"stale":1}\n');
    const one = await record('{"n":3}\n');
    const two = await record('{"n":4}\n');
    // b's lease is stale: neither moves.
    const lost = await counting(() =>
      swapRefs(ctx, [
        { ref: a, commit: one, expected: null },
        { ref: b, commit: two, expected: stale },
      ]),
    );
    assert.deepEqual(lost, { value: "lost", gits: [] });
    assert.equal(await remoteRef(a), null);
    // Both leases hold when the advertisement is read; another writer moves b before the push
    // arrives: receive-pack's own lease check refuses b, so neither moves, and it is a lost race.
    const client = await ctx.net.smartHttp();
    assert.ok(client);
    const theirs = await record('{"theirs":4}\n');
    assert.equal(await swapRef(ctx, "refs/ticket-runner/keep", theirs, null), "pushed");
    class RacedClient extends SmartHttpClient {
      override async rpc(service: SmartService, body: Buffer): Promise<Buffer> {
        await git(bare, ["update-ref", b, theirs, ""]);
        return super.rpc(service, body);
      }
    }
    const raced = new RacedClient({
      url,
      authorization: `Basic ${Buffer.from(`x-access-token:${writer}`).toString("base64")}`,
      idleMs: 30_000,
      redact: (t) => t,
    });
    assert.deepEqual(
      await pushOverHttp(raced, [
        { ref: a, commit: one, expected: null },
        { ref: b, commit: two, expected: null },
      ]),
      { outcome: "lost" },
    );
    assert.deepEqual([await remoteRef(a), await remoteRef(b)], [null, theirs]);
    await git(bare, ["update-ref", "-d", b]);
    // Both hold: both move, in one push; then both go in one delete-only push (no pack).
    assert.deepEqual(
      await counting(() =>
        swapRefs(ctx, [
          { ref: a, commit: one, expected: null },
          { ref: b, commit: two, expected: null },
        ]),
      ),
      { value: "pushed", gits: [] },
    );
    assert.deepEqual([await remoteRef(a), await remoteRef(b)], [one, two]);
    assert.deepEqual(
      await counting(() =>
        swapRefs(ctx, [
          { ref: a, commit: null, expected: one },
          { ref: b, commit: null, expected: two },
        ]),
      ),
      { value: "pushed", gits: [] },
    );
    assert.deepEqual([await remoteRef(a), await remoteRef(b)], [null, null]);
    await git(bare, ["fsck", "--strict", "--no-dangling"]);
  });

  it("a refusal by the remote throws what it said, without the token, and moves nothing", async () => {
    const commit = await record('{"pull":1}\n');
    const { value: err, gits } = await counting(() =>
      swapRef(ctx, "refs/pull/9/head", commit, null).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    assert.deepEqual(gits, []);
    assert.ok(err instanceof Failure, String(err));
    assert.equal(err.reason, "git");
    assert.match(err.message, /refused the push to refs\/pull\/9\/head/);
    assert.match(err.message, /hidden ref/);
    assert.ok(!err.message.includes(writer), err.message);
    assert.equal(await remoteRef("refs/pull/9/head"), null);
  });

  it("a token the remote does not take is a typed error naming the remote and the fix, without the token", async () => {
    const bad = `trsb_${"x".repeat(24)}`;
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY, token: bad });
    const other: RepoContext = {
      ...ctx,
      git: runner,
      net: new RemoteGit(runner, { root: ctx.root, remote: "origin", url, token: bad, env: ISOLATED_GIT_ENV }),
    };
    const { value: err, gits } = await counting(() =>
      lsRemoteRefs(other, ["refs/ticket-runner/state/*"]).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    assert.deepEqual(gits, []);
    assert.ok(err instanceof GitHttpFailure, String(err));
    assert.equal(err.status, 401);
    assert.ok(err.message.includes(url), err.message);
    assert.match(err.message, /TICKET_RUNNER_TOKEN/);
    assert.ok(!err.message.includes(bad) && !err.message.includes(writer), err.message);
    await other.net.dispose();
  });

  it("follows no redirect: the token never reaches where a redirect points", async () => {
    const seen: string[] = [];
    const canary = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
      res.end();
    });
    await new Promise<void>((r) => canary.listen(0, "127.0.0.1", r));
    const to = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
    const redirector = createServer((req, res) => {
      res.writeHead(302, { location: `${to}${req.url}` });
      res.end();
    });
    await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", r));
    const from = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/acme/widgets.git`;
    const other: RepoContext = { ...ctx, net: new RemoteGit(ctx.git, { root: ctx.root, remote: "origin", url: from, token: writer, env: ISOLATED_GIT_ENV }) };
    const commit = await record("{}\n");
    try {
      for (const attempt of [() => lsRemoteRefs(other, ["refs/heads/*"]), () => swapRef(other, "refs/ticket-runner/state/6", commit, null)]) {
        const { value: err, gits } = await counting(() =>
          attempt().then(
            () => null,
            (e: unknown) => e,
          ),
        );
        assert.deepEqual(gits, []);
        assert.ok(err instanceof GitHttpFailure, String(err));
        assert.equal(err.status, 302);
        assert.match(err.message, /redirect/);
        assert.ok(!err.message.includes(writer), err.message);
      }
      assert.deepEqual(seen, []);
    } finally {
      await other.net.dispose();
      await Promise.all([new Promise((r) => canary.close(r)), new Promise((r) => redirector.close(r))]);
    }
  });

  it("leaves a push to git when it needs objects this process did not make, and git pushes it", async () => {
    const ref = "refs/ticket-runner/state/5";
    // A commit git made (not in this process's record): git pushes it, nothing is tried over HTTP first.
    const tree = await git(ctx.root, ["rev-parse", "HEAD^{tree}"]);
    const byGit = await git(ctx.root, ["commit-tree", "-m", "made by git", tree]);
    const first = await counting(() => swapRef(ctx, ref, byGit, null));
    assert.equal(first.value, "pushed");
    assert.ok(
      first.gits.some((g) => g.includes("push")),
      first.gits.join("\n"),
    );
    assert.equal(await remoteRef(ref), byGit);
    // A commit of this process on a parent git made and never pushed: receive-pack finds the parent
    // missing, nothing moves, and git's push (which sends it) lands both.
    const parent = await git(ctx.root, ["commit-tree", "-m", "unpushed parent", "-p", byGit, tree]);
    const child = await record('{"on":"an unpushed parent"}\n', parent);
    const second = await counting(() => swapRef(ctx, ref, child, byGit));
    assert.equal(second.value, "pushed");
    assert.ok(
      second.gits.some((g) => g.includes("push")),
      second.gits.join("\n"),
    );
    assert.equal(await remoteRef(ref), child);
    await git(bare, ["fsck", "--strict", "--no-dangling"]);
  });

  it("reads git's own advertisements of an empty repository (no line at all, and the capabilities^{} line)", async () => {
    const empty = join(dir, "empty.git");
    await git(dir, ["init", "--quiet", "--bare", empty]);
    const preamble = (service: string): Buffer => Buffer.concat([pktLine(`# service=git-${service}\n`), Buffer.from("0000")]);
    for (const service of ["upload-pack", "receive-pack"] as const) {
      const said = await git(dir, [service, "--http-backend-info-refs", empty]);
      const adv = parseAdvertisement(Buffer.concat([preamble(service), Buffer.from(`${said}\n`.replace(/0000\n$/, "0000"), "latin1")]), service);
      assert.deepEqual(adv.refs, [], service);
      if (service === "receive-pack") {
        assert.ok(adv.caps.has("report-status") && adv.caps.has("delete-refs") && adv.caps.has("atomic"), [...adv.caps.keys()].join(" "));
        assert.equal(adv.caps.get("object-format"), "sha1");
      }
    }
  });

  it("lists refs as `git ls-remote` does for the same patterns, with no git process", async () => {
    // Refs of every kind the listings meet: records, lock branches, an annotated tag (peeled line), HEAD.
    await swapRef(ctx, "refs/ticket-runner/state/1", await record('{"n":1}\n'), await remoteRef("refs/ticket-runner/state/1"));
    await swapRef(ctx, "refs/ticket-runner/state/12", await record('{"n":12}\n'), null);
    await swapRef(ctx, "refs/heads/ticket-runner/locks/host-a", await record('{"h":"a"}\n'), null);
    await swapRef(ctx, "refs/heads/ticket-runner/state", await record('{"legacy":1}\n'), null);
    await git(ctx.root, ["tag", "-a", "-m", "v1", "v1"]);
    await git(ctx.root, ["push", "-q", url, "refs/tags/v1"], basicAuthEnv(writer));
    const cases = [
      ["refs/ticket-runner/state/*", "refs/heads/ticket-runner/state"],
      ["refs/ticket-runner/state/1", "refs/heads/ticket-runner/state"],
      ["refs/heads/ticket-runner/lock", "refs/heads/ticket-runner/locks/*", "refs/ticket-runner/state/*"],
      ["state/1", "locks/*"],
      ["v1"],
      ["refs/tags/*"],
      ["HEAD", "main"],
      ["refs/ticket-runner/state/?", "refs/ticket-runner/state/[0-9][0-9]"],
      ["nothing/here"],
      [],
    ];
    for (const patterns of cases) {
      const { value: ours, gits } = await counting(() => lsRemoteRefs(ctx, patterns));
      assert.deepEqual(gits, [], patterns.join(" "));
      const out = await git(dir, ["ls-remote", url, ...patterns], basicAuthEnv(writer));
      const theirs = new Map(
        out
          .split("\n")
          .filter(Boolean)
          .map((l): [string, string] => {
            const [sha, ref] = l.split("\t");
            return [ref!, sha!];
          }),
      );
      assert.deepEqual(ours, theirs, patterns.join(" "));
    }
  });
});
