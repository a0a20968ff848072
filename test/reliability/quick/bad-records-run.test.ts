/**
 * Bad input, rows "a State file or lock.json from a newer version, or corrupt", end to end: the
 * real `node dist/cli.js run` against the sandbox. Expected outcome:
 *   - a Stranded ticket whose State file a newer version wrote: the Run says so (naming the version),
 *     leaves the file byte for byte and the claim alone, works the other tickets, exits 0;
 *   - a corrupt lock.json: the Run refuses before taking anything (exit 2), naming the file and
 *     `ticket-runner unlock`; nothing on the board changes; after `ticket-runner unlock --yes` it runs.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { PRODUCT_VERSION } from "../../../src/core/version";
import { DEMO_ISSUES } from "../../../src/sandbox/seeds/demo-project";
import { endingOf, viewTickets } from "../chaos/observe";
import { CLI, startRun } from "../chaos/run-process";
import { ChaosWorld, gitOut, type ChaosTarget, type HostSpec } from "../chaos/world";
import { record } from "../support/figures";

const exec = promisify(execFile);

/** A person (or a newer version) commits straight to a branch of the Target, through a clone. */
async function commitTo(host: HostSpec, t: ChaosTarget, branch: string, files: Record<string, string>): Promise<void> {
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${t.token}`).toString("base64")}`;
  const g = (args: string[]) =>
    exec("git", ["-c", `http.extraHeader=${header}`, ...args], {
      cwd: host.clone,
      env: {
        ...process.env,
        ...host.env,
        GIT_AUTHOR_NAME: "P",
        GIT_AUTHOR_EMAIL: "p@example.invalid",
        GIT_COMMITTER_NAME: "P",
        GIT_COMMITTER_EMAIL: "p@example.invalid",
      },
    });
  const exists = (await g(["ls-remote", "--heads", "origin", branch])).stdout.trim() !== "";
  if (exists) {
    await g(["fetch", "-q", "origin", branch]);
    await g(["checkout", "-q", "-B", branch, "FETCH_HEAD"]);
  } else {
    await g(["checkout", "-q", "--orphan", branch]);
    await g(["rm", "-rfq", "--cached", "."]);
  }
  for (const [path, content] of Object.entries(files)) writeFileSync(join(host.clone, path), content);
  await g(["add", "--", ...Object.keys(files)]);
  await g(["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "by hand"]);
  await g(["push", "-q", "origin", `HEAD:refs/heads/${branch}`]);
  await g(["checkout", "-q", "-f", "main"]);
  await g(["clean", "-qfd"]);
}

describe("reliability: records this version cannot read, through `ticket-runner run`", function () {
  this.timeout(300_000);
  let world: ChaosWorld;

  before(async function () {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    world = await ChaosWorld.start();
  });
  after(async () => world?.stop());

  it("a Stranded ticket with a newer State file is left alone, named, byte for byte; the rest is worked", async () => {
    const t = await world.target({ name: "newer-state", issues: [DEMO_ISSUES[0]!, DEMO_ISSUES[4]!], config: { lanes: 1 } });
    const host = await world.host(t, "host-a");
    const newer = `${JSON.stringify({ ticket: 1, branch: "agent/1-x", state: "implemented", fixUsed: false, pullRequest: null, title: null, runId: "r", version: "9.0.0", updatedAt: "2030-01-01T00:00:00.000Z", format: 2, lanesUsed: 3 }, null, 2)}\n`;
    await commitTo(host, t, "ticket-runner/state", { "ticket-1.json": newer });
    // #1 looks Stranded: claimed on the board by the bot, as a killed newer Run would leave it.
    await world.adminOctokit.rest.issues.update({ owner: t.owner, repo: t.name, issue_number: 1, labels: ["in-progress"], assignees: [t.login] });
    const before = await gitOut(t.gitDir, ["rev-parse", "refs/heads/ticket-runner/state:ticket-1.json"]);

    const run = startRun(host.clone, host.env, ["--repo", t.full, "--api-url", world.sandbox.apiUrl]);
    const { code } = await run.exited;
    assert.equal(code, 0, run.stderr());
    assert.match(run.stderr(), /#1 has a State file this Version cannot use, written by 9\.0\.0/);
    const views = await viewTickets(world, t);
    assert.deepEqual(views[0]!.labels, ["in-progress"], "the claim is left alone");
    assert.deepEqual(views[0]!.assignees, [t.login]);
    assert.equal(endingOf(views[1]!), "merged", "the other ticket is worked");
    assert.equal(await gitOut(t.gitDir, ["rev-parse", "refs/heads/ticket-runner/state:ticket-1.json"]), before, "the file is byte for byte as it was");
    record("input.records.run", {
      what: "the Run leaves a newer State file and its claim alone, refuses a corrupt lock",
      test: "test/reliability/quick/bad-records-run.test.ts",
      inputs: 1,
      losses: 0,
    });
  });

  it("a State file that names the base branch (anyone who can push writes one) is refused and reported, left as it is; nothing reaches main", async () => {
    const t = await world.target({ name: "steer-state", issues: [DEMO_ISSUES[0]!], config: { lanes: 1 } });
    const host = await world.host(t, "host-a");
    const steer = `${JSON.stringify({ ticket: 1, branch: "main", state: "implemented", fixUsed: false, pullRequest: null, title: null, runId: "r", version: PRODUCT_VERSION, updatedAt: "2026-01-01T00:00:00.000Z" }, null, 2)}\n`;
    await commitTo(host, t, "ticket-runner/state", { "ticket-1.json": steer });
    // #1 looks Stranded, so the Run resumes it from that State file.
    await world.adminOctokit.rest.issues.update({ owner: t.owner, repo: t.name, issue_number: 1, labels: ["in-progress"], assignees: [t.login] });
    const mainBefore = await gitOut(t.gitDir, ["rev-parse", "refs/heads/main"]);
    const fileBefore = await gitOut(t.gitDir, ["rev-parse", "refs/heads/ticket-runner/state:ticket-1.json"]);

    const run = startRun(host.clone, host.env, ["--repo", t.full, "--api-url", world.sandbox.apiUrl]);
    const { code } = await run.exited;
    assert.equal(code, 0, run.stderr());
    assert.match(run.stderr(), /#1 has a State file .*names the branch "main", which is not ticket 1's own agent\/1-… branch/);
    assert.equal(await gitOut(t.gitDir, ["rev-parse", "refs/heads/main"]), mainBefore, "nothing was pushed to main");
    assert.equal(await gitOut(t.gitDir, ["rev-parse", "refs/heads/ticket-runner/state:ticket-1.json"]), fileBefore, "the file is left as it was");
    record("input.records.steer", {
      what: "a State file naming the base (or any branch not the ticket's own) is refused and reported; nothing pushed there",
      test: "test/reliability/quick/bad-records-run.test.ts",
      inputs: 1,
      losses: 0,
    });
  });

  it("a corrupt lock.json: refused before anything is taken, with the way out; unlock, then it runs", async () => {
    const t = await world.target({ name: "corrupt-lock", issues: [DEMO_ISSUES[4]!], config: { lanes: 1 } });
    const host = await world.host(t, "host-a");
    await commitTo(host, t, "ticket-runner/lock", { "lock.json": "{ held: maybe, pid: -1 " });
    const lockTip = await gitOut(t.gitDir, ["rev-parse", "refs/heads/ticket-runner/lock"]);

    const refused = startRun(host.clone, host.env, ["--repo", t.full, "--api-url", world.sandbox.apiUrl]);
    const r = await refused.exited;
    assert.equal(r.code, 2, refused.stderr());
    assert.match(refused.stderr(), /lock\.json on ticket-runner\/lock cannot be read/);
    assert.match(refused.stderr(), /ticket-runner unlock/);
    assert.equal(await gitOut(t.gitDir, ["rev-parse", "refs/heads/ticket-runner/lock"]), lockTip, "the lock is left as it was");
    const untouched = await viewTickets(world, t);
    assert.deepEqual(untouched[0]!.labels, ["ready-for-agent"], "nothing was claimed");

    const unlock = await exec(process.execPath, [CLI, "unlock", "--yes"], { cwd: host.clone, env: host.env }).then(
      (x) => ({ code: 0, ...x }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" }),
    );
    assert.equal(unlock.code, 0, unlock.stderr);
    const run = startRun(host.clone, host.env, ["--repo", t.full, "--api-url", world.sandbox.apiUrl]);
    assert.equal((await run.exited).code, 0, run.stderr());
    assert.equal(endingOf((await viewTickets(world, t))[0]!), "merged");
    record("input.records.run", {
      what: "the Run leaves a newer State file and its claim alone, refuses a corrupt lock",
      test: "test/reliability/quick/bad-records-run.test.ts",
      inputs: 1,
      losses: 0,
    });
  });
});
