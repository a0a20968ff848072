/**
 * Secrets, git's side (ADR 0150). The Checks and the agent run code in worktrees
 * that share the clone's `.git`, so they can plant hooks and config keys that would run programs in
 * the Run's own git calls, or send its pushes (and the token with them) to another server. Here
 * they plant every hook git knows and each such key; then the Run fetches, pushes, writes State,
 * takes the lock, rebases and cleans up over the sandbox's smart-HTTP remote with a real token.
 * A canary server stands where every redirect points. The token must be found nowhere, no planted
 * program may run, and the clone must end as it began. A control at the end shows the same plant
 * does catch a plain `git push` with the token, so the search cannot pass by looking nowhere.
 */
import { strict as assert } from "node:assert";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { GitWorkspace, type GitWorkspaceOptions } from "../../../src/adapters/git/git-workspace";
import { NodeHost } from "../../../src/adapters/node-host";
import { startSandbox, type SandboxHandle } from "../../../src/sandbox/start";
import { git, makeTempDir, TEST_IDENTITY } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV, stateFor } from "../../integration/workspace/support/workspace-fixture";
import { record } from "../support/figures";
import { HOOKS, plantAttack, tokenForms } from "../support/git-attack";

function basicAuthEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

async function hooksOf(root: string): Promise<Map<string, string>> {
  const dir = join(root, ".git", "hooks");
  const names = await readdir(dir).catch(() => [] as string[]);
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), "utf8")] as [string, string])));
}

describe("reliability: code in a worktree cannot reach the Run's token through git", function () {
  this.timeout(180_000);
  let sandbox: SandboxHandle;
  let canary: Server;
  let canaryUrl: string;
  const received: string[] = [];
  let dir: string;
  let token: string;

  before(async () => {
    sandbox = await startSandbox({ quiet: true, seed: "none" });
    await sandbox.admin.createRepo({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n", "src/w.txt": "w\n" } });
    token = (await sandbox.admin.addUser({ login: "runner", repos: { "acme/widgets": "write" } })).token;
    canary = createServer((req, res) => {
      const body: Buffer[] = [];
      req.on("data", (d: Buffer) => body.push(d));
      req.on("end", () => {
        received.push(`${req.method} ${req.url}\n${req.rawHeaders.join("\n")}\n${Buffer.concat(body).toString("latin1")}`);
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => canary.listen(0, "127.0.0.1", r));
    canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/`;
    dir = await makeTempDir("tr-git-isolation-");
  });
  after(async () => {
    await sandbox?.stop();
    await new Promise<void>((r) => (canary ? canary.close(() => r()) : r()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("every hook and each config key planted: nothing runs, nothing is redirected, the token is found 0 times, the clone ends as it began", async () => {
    const url = sandbox.gitUrl("acme", "widgets");
    const root = join(dir, "clone");
    await git(dir, ["clone", "-q", url, root], basicAuthEnv(token));
    const other = join(dir, "person");
    await git(dir, ["clone", "-q", url, other], basicAuthEnv(token));
    const evidence = join(dir, "evidence");
    await mkdir(evidence);
    const options: GitWorkspaceOptions = { root, host: new NodeHost(), token, remoteUrl: url, env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY };
    const ws = new GitWorkspace(options);
    await ws.preflight("main");
    const configBefore = await readFile(join(root, ".git", "config"), "utf8");
    const hooksBefore = await hooksOf(root);

    // The agent plants it during a Stage (nothing puts it back until the next Check).
    const attack = await plantAttack({ root, evidence, redirectFrom: new URL(url).origin + "/", redirectTo: canaryUrl, scratch: dir });
    await attack.plant();
    assert.equal(await ws.fetchBase("main"), "remote");
    const lane = await ws.cutLane(1, ws.branchFor(1, "isolation"), "main");
    await writeFile(join(lane.path, "src", "w.txt"), "work\n");
    // The agent's own commit, which runs what it planted: its business, not the Run's.
    await git(lane.path, ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "commit", "-qam", "implement #1"]);
    const pushed = await ws.push(lane);
    assert.equal(pushed.ok, true, pushed.detail);
    assert.equal(await ws.remoteBranchSha(lane.branch), await ws.headSha(lane));
    await ws.writeState(1, () => stateFor(1, { branch: lane.branch }));
    assert.equal((await ws.readStates()).files.length, 1);
    const held = await ws.acquireLock({
      host: new NodeHost().identity(),
      pid: process.pid,
      command: "ticket-runner run",
      runId: "iso-1",
      startedAt: new Date().toISOString(),
      processStartTime: null,
    });
    assert.equal(held.ok, true);
    // A person moves the base on: the Run fetches it and rebases the lane (post-rewrite, post-checkout).
    await writeFile(join(other, "README.md"), "moved\n");
    await git(other, ["commit", "-qam", "base moves"]);
    await git(other, ["push", "-q", "origin", "main"], basicAuthEnv(token));
    await ws.fetchBase("main");
    assert.equal(await ws.rebaseOnto(lane, "main"), "clean");
    assert.equal((await ws.push(lane)).ok, true);

    // Nothing planted ran in the Run's git, and nothing it sent was redirected.
    assert.deepEqual(await readdir(evidence), [], "a planted hook or program ran in the Run's git");
    assert.deepEqual(received, [], "a request of the Run's git was redirected to the canary server");

    // A Check plants it again; the guard puts the clone back and says where the Check's files went.
    const check = await ws.runCheck(lane, [process.execPath, attack.script], 30_000);
    assert.equal(check.exitCode, 0, check.output);
    assert.match(check.output, /put back: .*\.git\/config was changed/);
    assert.equal(await readFile(join(root, ".git", "config"), "utf8"), configBefore);
    assert.deepEqual(await hooksOf(root), hooksBefore);

    await attack.plant();
    const cleaned = await ws.cleanupLane(lane, { deleteRemote: true, base: "main" });
    assert.equal(cleaned.remoteBranch, "deleted", cleaned.detail);
    assert.equal((await ws.releaseLock("iso-1")).released, true);
    assert.equal(await ws.remoteBranchSha(lane.branch), null);

    // Nothing planted ran, nothing reached the canary server, and the clone is as it was.
    assert.deepEqual(await readdir(evidence), [], "a planted hook or program ran in the Run's git");
    assert.deepEqual(received, [], "a request of the Run's git was redirected to the canary server");
    assert.equal(await readFile(join(root, ".git", "config"), "utf8"), configBefore);
    assert.deepEqual(await hooksOf(root), hooksBefore);

    // The token, in every form, in every place it could have gone.
    const forms = tokenForms(token);
    const places = [
      ...(await filesUnder(root)),
      ...(await filesUnder(evidence)),
      ...(await filesUnder(dir)).filter((f) => !f.startsWith(root) && !f.startsWith(other)),
    ];
    let bytes = 0;
    const found: string[] = [];
    for (const file of new Set(places)) {
      const text = (await readFile(file)).toString("latin1");
      bytes += text.length;
      if (forms.some((f) => text.includes(f))) found.push(file);
    }
    for (const text of [...received, check.output, pushed.detail]) if (forms.some((f) => text.includes(f))) found.push("(request or output)");
    assert.deepEqual(found, []);

    // Control: the same plant catches a plain git push that carries the token in its environment.
    await attack.plant();
    await git(root, ["push", "-q", "origin", "HEAD:refs/heads/control"], basicAuthEnv(token)).catch(() => undefined);
    const caught = [...received, ...(await Promise.all((await filesUnder(evidence)).map((f) => readFile(f, "latin1"))))];
    assert.ok(
      caught.some((t) => forms.some((f) => t.includes(f))),
      "the control push's token was not found: the search looks nowhere",
    );

    record("secrets.git-isolation", {
      what: "every hook and each config key (url.insteadOf, http.proxy, core.sshCommand, credential.helper, include.path, core.fsmonitor, core.askPass, core.hooksPath) planted by the agent and the Checks: the Run's git runs none, sends the token nowhere but its URL, and leaves the clone as it was",
      test: "test/reliability/quick/git-isolation.test.ts",
      inputs: HOOKS.length + attack.keys.length,
      losses: found.length,
      notes: `${new Set(places).size + received.length + 2} places searched, ${Math.round(bytes / 1024)} KiB; ${HOOKS.length} hooks, ${attack.keys.length} config keys`,
    });
  });

  it("filters and merge drivers planted in the config (and an included file) with a committed .gitattributes run in none of the Run's checkouts and rebases (ADR 0223)", async () => {
    await sandbox.admin.createRepo({
      owner: "acme",
      name: "drivers",
      files: {
        "README.md": "one\ntwo\nthree\n",
        "src/w.txt": "w\n",
        ".gitattributes": "README.md filter=evil merge=evil\nsrc/*.txt filter=evil2 merge=evil2\n",
      },
    });
    await sandbox.admin.setRole("runner", "acme/drivers", "write");
    const url = sandbox.gitUrl("acme", "drivers");
    const root = join(dir, "drivers-clone");
    const other = join(dir, "drivers-person");
    await git(dir, ["clone", "-q", url, root], basicAuthEnv(token));
    await git(dir, ["clone", "-q", url, other], basicAuthEnv(token));
    const evidence = join(dir, "drivers-evidence");
    await mkdir(evidence);
    const ws = new GitWorkspace({ root, host: new NodeHost(), token, remoteUrl: url, env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY });
    await ws.preflight("main");

    // The agent writes the drivers into the clone's config, one pair through an included file.
    const spy = join(dir, "driver-spy.sh");
    await writeFile(spy, `#!/bin/sh\nf="${evidence}/$(basename "$0")-$$"\nenv > "$f.env"\necho "$@" > "$f.args"\nexit 0\n`, { mode: 0o755 });
    const included = join(dir, "drivers.gitconfig");
    await writeFile(included, `[filter "evil2"]\n\tprocess = ${spy}\n\tsmudge = ${spy} %f\n\trequired = true\n[merge "evil2"]\n\tdriver = ${spy} %O %A %B\n`);
    const planted = `[filter "evil"]\n\tclean = ${spy} %f\n\tsmudge = ${spy} %f\n\trequired = true\n[merge "evil"]\n\tdriver = ${spy} %O %A %B\n[include]\n\tpath = ${included}\n`;
    await writeFile(join(root, ".git", "config"), (await readFile(join(root, ".git", "config"), "utf8")) + planted);

    assert.equal(await ws.fetchBase("main"), "remote");
    const lane = await ws.cutLane(1, ws.branchFor(1, "drivers"), "main");
    assert.deepEqual(await readdir(evidence), [], "a planted filter ran in the Run's worktree add");
    assert.equal(await readFile(join(lane.path, "README.md"), "utf8"), "one\ntwo\nthree\n", "checked out as committed");

    // The agent's own commit (what its filters do there is its business, not the Run's).
    await writeFile(join(lane.path, "README.md"), "ONE\ntwo\nthree\n");
    await writeFile(join(lane.path, "src", "w.txt"), "work\n");
    const off = ["filter.evil.clean=", "filter.evil.required=false", "filter.evil2.process=", "filter.evil2.required=false"].flatMap((c) => ["-c", c]);
    await git(lane.path, [...off, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "implement #1"]);

    // The base moves on in the same file: the Run's rebase merges README.md, which names the planted driver.
    await writeFile(join(other, "README.md"), "one\ntwo\nTHREE\n");
    await git(other, ["commit", "-qam", "base moves"]);
    await git(other, ["push", "-q", "origin", "main"], basicAuthEnv(token));
    await ws.fetchBase("main");
    const rebased = await ws.rebaseOnto(lane, "main");
    assert.deepEqual(await readdir(evidence), [], "a planted filter or merge driver ran in the Run's rebase");
    // A merge driver switched off makes that file's merge a conflict, never the planted program's verdict.
    assert.equal(rebased, "conflict");
    assert.ok((await ws.conflictedFiles(lane)).includes("README.md"));
    assert.deepEqual(await readdir(evidence), [], "a planted filter ran in the Run's status of the lane");

    record("secrets.git-drivers", {
      what: "filter.<x>.clean/smudge/process and merge.<x>.driver planted in the clone's config and an included file, named by a committed .gitattributes: none runs in the Run's worktree add, rebase or status",
      test: "test/reliability/quick/git-isolation.test.ts",
      inputs: 6,
      losses: (await readdir(evidence)).length,
      notes: "2 filters (one through include.path) and 2 merge drivers; README.md's merge is a conflict",
    });
  });
});
