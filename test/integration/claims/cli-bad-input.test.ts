/**
 * CLI bad input from people who should get a refusal, not a failure (ADR 0220): an
 * outsider's release, run and hand-back; unlock and stop outside a clone; a base that is nowhere;
 * `--repo ../..`; a ticket that is not a number. Each: exit 2, one line naming the thing and the
 * next command, and nothing claimed or changed. Real CLI processes against the sandbox.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useClaimsSandbox } from "./claims-sandbox";
import { runCli, type CliResult } from "./cli-process";
import { boardOf, said, usePeople } from "./people";

/** A refusal: exit 2, nothing on stdout, one line on stderr that names `next` (and at most the refusal's own `Next:` line). */
function refusedInOneLine(r: CliResult, next: string | RegExp): void {
  assert.equal(r.code, 2, said(r));
  assert.equal(r.stdout, "", said(r));
  const [line, ...more] = r.stderr.trimEnd().split("\n");
  assert.ok(more.length === 0 || (more.length === 1 && more[0]!.startsWith("Next: ")), said(r));
  if (typeof next === "string") assert.ok(line!.includes(next), said(r));
  else assert.match(line!, next, said(r));
  assert.doesNotMatch(r.stderr, /failed:|fatal:|Must have push access|HttpError/, said(r));
}

describe("CLI (integration): bad input is refused with the next command, and changes nothing", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write", mallory: "read" } });
  const people = usePeople(s, ["alice", "mallory"]);
  let elsewhere: string;

  before(async () => {
    elsewhere = mkdtempSync(join(tmpdir(), "tr-not-a-clone-"));
  });
  after(async () => {
    if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
  });

  const board = (n: number) => boardOf(s, n);

  it("an outsider's release of a ticket someone holds, run and hand-back: exit 2, one line, nothing changed", async () => {
    const held = await s.issue("alice holds this");
    assert.equal((await people.cli("alice", ["start", String(held)])).code, 0);
    const ready = await s.issue("on the Frontier");
    const handedOff = await s.issue("handed off", ["ready-for-human"]);
    const before = [await board(held), await board(ready), await board(handedOff)];

    refusedInOneLine(await people.cli("mallory", ["release", String(held)]), `ticket-runner release ${held}`);
    refusedInOneLine(await people.cli("mallory", ["run", String(ready)]), `ticket-runner run ${ready}`);
    refusedInOneLine(await people.cli("mallory", ["run"]), "`ticket-runner run`");
    refusedInOneLine(await people.cli("mallory", ["hand-back", String(handedOff)]), `ticket-runner hand-back ${handedOff}`);
    const r = await people.cli("mallory", ["hand-back", String(handedOff)]);
    assert.match(r.stderr, /mallory has "read" access to acme\/widgets; handing a ticket back needs write access.*Nothing was changed\./, said(r));

    assert.deepEqual([await board(held), await board(ready), await board(handedOff)], before, "the board is exactly as it was");
  });

  it("start --base <a branch that is nowhere> is refused before anything is claimed", async () => {
    const n = await s.issue("wrong base");
    const before = await board(n);
    const r = await people.cli("alice", ["start", String(n), "--base", "no-such-branch"]);
    refusedInOneLine(r, /The base branch `no-such-branch` is neither on the remote/);
    assert.equal(await board(n), before, "not claimed on the board");
    assert.ok(!existsSync(join(people.runDir("alice", n), "run.json")), "no local claim");

    // resume too: the lease alice holds is not rewritten for a base that is nowhere.
    assert.equal((await people.cli("alice", ["start", String(n)])).code, 0);
    const held = await board(n);
    refusedInOneLine(await people.cli("alice", ["resume", String(n), "--base", "no-such-branch"]), /The base branch `no-such-branch` is neither on the remote/);
    assert.equal(await board(n), held, "the lease is as it was");
  });

  it("--repo ../.. is not a repository", async () => {
    const r = await runCli(["board", "--repo", "../.."], {
      cwd: elsewhere,
      env: { TICKET_RUNNER_TOKEN: s.tokens.alice!, TICKET_RUNNER_API_URL: s.sandbox.apiUrl },
    });
    refusedInOneLine(r, /--repo must look like owner\/name, not "\.\.\/\.\."/);
  });

  it("hand-back abc names hand-back in its hint", async () => {
    refusedInOneLine(await people.cli("alice", ["hand-back", "abc"]), "`ticket-runner hand-back 12`");
  });

  it("unlock and stop outside a clone say to go to the clone", async () => {
    const env = { TICKET_RUNNER_TOKEN: s.tokens.alice!, TICKET_RUNNER_RUN_ROOT: join(s.dir, "runs-elsewhere") };
    refusedInOneLine(await runCli(["unlock", "--yes"], { cwd: elsewhere, env }), "`cd <your clone> && ticket-runner unlock --yes`");
    refusedInOneLine(await runCli(["stop"], { cwd: elsewhere, env }), "`cd <your clone> && ticket-runner stop`");
  });

  it("stop in a clone whose ticket-runner.json is broken is refused as run refuses it, naming the file", async () => {
    // stop read the file on its own and took a broken one for the Target's lock: "No Run to stop".
    const clone = await s.clone("alice", "clone-broken-config", {});
    writeFileSync(join(clone, "ticket-runner.json"), '{ "lockScope": "host", ');
    const env = { TICKET_RUNNER_TOKEN: s.tokens.alice!, TICKET_RUNNER_RUN_ROOT: join(s.dir, "runs-broken") };
    const stop = await runCli(["stop"], { cwd: clone, env });
    refusedInOneLine(stop, /ticket-runner\.json is not valid JSON/);
    const run = await runCli(["run"], { cwd: clone, env });
    assert.equal(run.code, 2, said(run));
    assert.match(run.stderr, /ticket-runner\.json is not valid JSON/, said(run));
  });
});
