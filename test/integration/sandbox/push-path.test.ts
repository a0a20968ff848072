/**
 * What a push costs the sandbox besides receive-pack's own work (ADR 0471): no `git gc --auto` in
 * the push's path and no listing of the repository's refs as the quarantine's alternate, both given
 * to every receive-pack in its environment (RECEIVE_PACK_CONFIG), so they hold for repositories made
 * before too; and what must stay: the connectivity check refuses a push whose objects are missing,
 * a hidden ref is still refused. The repository's own config asks for both programs, so each case
 * fails where the sandbox's setting does not reach receive-pack's children. Also: the sandbox's own
 * lookups of a request start no `git rev-parse`; the sandbox's pre-receive hook runs only in a push
 * it has work in (ADR 0474), and refuses what it refused. Real git over real HTTP.
 */
import { strict as assert } from "node:assert";
import { promises as fsp } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { commitFile, gitOk, octokitFor, runGit } from "./support";

const OWNER = "acme";
const REPO = "pushes";

function pktLine(text: string): Buffer {
  return Buffer.from((text.length + 4).toString(16).padStart(4, "0") + text);
}

/** POSTs a receive-pack request body and returns receive-pack's whole answer. */
function receivePack(sb: SandboxHandle, token: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${sb.apiUrl}/${OWNER}/${REPO}.git/git-receive-pack`, {
      method: "POST",
      headers: {
        "content-type": "application/x-git-receive-pack-request",
        "content-length": String(body.length),
        authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    });
    req.end(body);
  });
}

/** A pack with no object in it (git's own, from pack-objects with nothing asked). */
async function emptyPack(cwd: string): Promise<Buffer> {
  const { execFile } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = execFile("git", ["pack-objects", "--stdout", "-q"], { cwd, encoding: "buffer" }, (e, out) => (e ? reject(e) : resolve(out)));
    child.stdin?.end("");
  });
}

describe("sandbox push path: what receive-pack runs (integration)", function () {
  let tmp: string;
  let sb: SandboxHandle;
  let gitDir: string;
  let token: string;
  let clone: string;

  before(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-push-path-"));
    sb = await startSandbox({ quiet: true, dataDir: path.join(tmp, "data") });
    await sb.admin.createRepo({ owner: OWNER, name: REPO, files: { "README.md": "# pushes\n" } });
    token = (await sb.admin.addUser({ login: "bob", repos: { [`${OWNER}/${REPO}`]: "write" } })).token;
    gitDir = path.join(tmp, "data", "repos", OWNER, `${REPO}.git`);
    // The repository itself asks for a gc on every push, in the push, and for its refs to be listed
    // by a program that leaves a mark: receive-pack's children would run both but for the sandbox.
    const marker = path.join(tmp, "alternate-refs-listed");
    const lister = path.join(tmp, "list-refs.sh");
    await fsp.writeFile(lister, `#!/bin/sh\n: > '${marker}'\n`, { mode: 0o755 });
    const config: [string, string][] = [
      ["gc.auto", "1"],
      ["gc.autoPackLimit", "1"],
      ["gc.autoDetach", "false"],
      ["core.alternateRefsCommand", lister],
    ];
    for (const [key, value] of config) await gitOk(["--git-dir", gitDir, "config", key, value], tmp);
    const url = new URL(sb.gitUrl(OWNER, REPO));
    url.username = "x-access-token";
    url.password = token;
    clone = path.join(tmp, "clone");
    await gitOk(["clone", "--quiet", url.toString(), clone], tmp);
  });

  after(async () => {
    await sb?.stop();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it("a push runs no gc and lists no refs for the connectivity check: what was loose stays loose until a later gc", async () => {
    const sha = await commitFile(clone, "a.txt", "a\n", "add a");
    await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/feature"], clone);
    assert.equal(await gitOk(["--git-dir", gitDir, "rev-parse", "refs/heads/feature"], tmp), sha);
    await assert.rejects(fsp.access(path.join(tmp, "alternate-refs-listed")), "the alternate refs command was not run");
    // gc.auto=1 would have packed every loose object had a `gc --auto` run in the push (the
    // sandbox writes the push's own objects as one pack: ADR 0482).
    const initial = await gitOk(["--git-dir", gitDir, "rev-parse", "refs/heads/main"], tmp);
    const loose = await fsp.access(path.join(gitDir, "objects", initial.slice(0, 2), initial.slice(2))).then(
      () => true,
      () => false,
    );
    assert.ok(loose, "the initial commit is still a loose object: no gc ran in the push");
  });

  it("the connectivity check still refuses a ref whose commit the push did not send", async () => {
    const absent = "1234567890123456789012345678901234567890";
    const body = Buffer.concat([pktLine(`${"0".repeat(40)} ${absent} refs/heads/nothing\0report-status\n`), Buffer.from("0000"), await emptyPack(clone)]);
    const answer = await receivePack(sb, token, body);
    assert.match(answer, /ng refs\/heads\/nothing missing necessary objects/);
    const r = await runGit(["--git-dir", gitDir, "rev-parse", "--verify", "--quiet", "refs/heads/nothing"], tmp);
    assert.notEqual(r.code, 0, "the ref was not made");
  });

  it("a hidden ref is still refused", async () => {
    const r = await runGit(["push", "origin", "HEAD:refs/pull/1/head"], clone);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /deny updating a hidden ref/);
  });

  it("a pull request's reads and writes ask which commit a ref names without a rev-parse process", async () => {
    await commitFile(clone, "b.txt", "b\n", "add b");
    await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/topic"], clone);
    const seen: string[] = [];
    const stop = watchGitProcesses((args) => seen.push(args.join(" ")));
    try {
      const gh = octokitFor(sb.apiUrl, token);
      const pr = await gh.pulls.create({ owner: OWNER, repo: REPO, head: "topic", base: "main", title: "Topic" });
      for (let i = 0; i < 3; i++) await gh.pulls.get({ owner: OWNER, repo: REPO, pull_number: pr.data.number });
      await gh.checks.listForRef({ owner: OWNER, repo: REPO, ref: pr.data.head.sha });
      await gh.checks.listForRef({ owner: OWNER, repo: REPO, ref: "topic" });
    } finally {
      stop();
    }
    assert.deepEqual(
      seen.filter((a) => a.includes("rev-parse")),
      [],
    );
    assert.ok(seen.length > 0, "the watcher saw the sandbox's other git (rev-list --count, update-ref)");
  });

  it("the sandbox's pre-receive hook runs only when it has work: a token without the workflow scope, a ruleset, the repository's own hook", async () => {
    const { token: narrow } = await sb.admin.addUser({ login: "carol", repos: { [`${OWNER}/${REPO}`]: "write" }, scopes: ["repo"] });
    const as = (login: string, secret: string): string => {
      const url = new URL(sb.gitUrl(OWNER, REPO));
      url.username = login;
      url.password = secret;
      return url.toString();
    };
    // carol's push needs the hook (no workflow scope), which writes it; it is then wrapped to leave a mark.
    await commitFile(clone, "c.txt", "c\n", "add c");
    await gitOk(["push", "--quiet", as("x-access-token", narrow), "HEAD:refs/heads/carol"], clone);
    const hook = path.join(tmp, "data", "spool", "hooks", "pre-receive");
    const ran = path.join(tmp, "sandbox-hook-ran");
    await fsp.rename(hook, `${hook}.real`);
    await fsp.writeFile(hook, `#!/bin/sh\n: > '${ran}'\nexec '${hook}.real'\n`, { mode: 0o755 });
    const hookRan = async (): Promise<boolean> => {
      const yes = await fsp.access(ran).then(
        () => true,
        () => false,
      );
      await fsp.rm(ran, { force: true });
      return yes;
    };

    await commitFile(clone, "d.txt", "d\n", "add d");
    await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/plain"], clone);
    assert.equal(await hookRan(), false, "bob's token has every scope, the repository no rule and no hook of its own: no hook");

    await gitOk(["push", "--quiet", as("x-access-token", narrow), "HEAD:refs/heads/carol"], clone);
    assert.equal(await hookRan(), true, "carol's token lacks the workflow scope");
    await commitFile(clone, ".github/workflows/ci.yml", "on: push\n", "add a workflow");
    const refused = await runGit(["push", as("x-access-token", narrow), "HEAD:refs/heads/carol"], clone);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /refusing to allow an OAuth App to create or update workflow `\.github\/workflows\/ci\.yml` without `workflow` scope/);
    assert.equal(await hookRan(), true);

    const ownRan = path.join(tmp, "own-hook-ran");
    const own = path.join(gitDir, "hooks", "pre-receive");
    await fsp.mkdir(path.dirname(own), { recursive: true });
    await fsp.writeFile(own, `#!/bin/sh\ncat > '${ownRan}'\n`, { mode: 0o755 });
    try {
      await gitOk(["push", "--quiet", "origin", "HEAD:refs/heads/own"], clone);
      assert.equal(await hookRan(), true, "the repository's own hook runs after the sandbox's");
      assert.match(await fsp.readFile(ownRan, "utf8"), / refs\/heads\/own\n$/);
    } finally {
      await fsp.rm(own, { force: true });
    }

    const admin = octokitFor(sb.apiUrl, sb.adminToken);
    await admin.request("POST /repos/{owner}/{repo}/rulesets", {
      owner: OWNER,
      repo: REPO,
      name: "no deletions",
      target: "branch",
      enforcement: "active",
      conditions: { ref_name: { include: ["~ALL"], exclude: [] } },
      rules: [{ type: "deletion" }],
    });
    const deletion = await runGit(["push", "origin", ":refs/heads/plain"], clone);
    assert.notEqual(deletion.code, 0);
    assert.match(deletion.stderr, /GH013: Repository rule violations found for refs\/heads\/plain/);
    assert.equal(await hookRan(), true, "a ruleset");
  });
});
