/**
 * Bad input, rows "a State file or lock.json from a newer version, or corrupt": committed straight
 * to the branches of a real bare remote, read by the real git Workspace. Expected outcome:
 *   State file -> listed as unreadable with a reason (and the version that wrote it, when it says);
 *                 never rewritten: a change to that ticket fails with `invalid-record`, and changes
 *                 to other tickets keep it byte for byte
 *   lock.json  -> the take is refused (`bad-input`, naming the file and `ticket-runner unlock`),
 *                 the branch tip is unchanged; `unlock` frees it
 */
import { strict as assert } from "node:assert";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { NodeHost } from "../../../src/adapters/node-host";
import { Failure, Refusal } from "../../../src/core/errors";
import type { LockHolder } from "../../../src/ports/workspace";
import { git, makeRemote, type RemoteFixture } from "../../support/git-fixtures";
import { stateFor, workspaceOn } from "../../integration/workspace/support/workspace-fixture";
import { record } from "../support/figures";

const TEST = "test/reliability/quick/bad-records.test.ts";
const STATE = "ticket-runner/state";
const LOCK = "ticket-runner/lock";

const valid = (n: number, over: Record<string, unknown> = {}): string => `${JSON.stringify({ ...stateFor(n), format: 1, ...over }, null, 2)}\n`;

/** Each bad State file, by ticket number, with what the reason must say. */
const BAD_STATES: { ticket: number; name: string; content: string | Buffer; reason: RegExp; writtenBy?: string }[] = [
  { ticket: 2, name: "newer format", content: valid(2, { format: 2, version: "9.0.0" }), reason: /format 2, newer/, writtenBy: "9.0.0" },
  {
    ticket: 3,
    name: "unknown fields (a newer writer)",
    content: valid(3, { version: "9.1.0", lanesUsed: 3 }),
    reason: /unknown fields lanesUsed/,
    writtenBy: "9.1.0",
  },
  { ticket: 4, name: "not JSON", content: "{ ticket: 4, state: implemented", reason: /is not JSON/ },
  { ticket: 5, name: "empty", content: "", reason: /is not JSON/ },
  { ticket: 6, name: "binary, invalid UTF-8", content: Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7b]), reason: /is not JSON/ },
  { ticket: 7, name: "an array", content: "[1,2,3]", reason: /not a JSON object/ },
  { ticket: 8, name: "null", content: "null", reason: /not a JSON object/ },
  { ticket: 9, name: "wrong types", content: valid(9, { ticket: "9", fixUsed: "no" }), reason: /ticket: Expected number/, writtenBy: "0.1.0" },
  { ticket: 10, name: "names another ticket", content: valid(11), reason: /names ticket 11, not 10/, writtenBy: "0.1.0" },
  { ticket: 12, name: "unknown state", content: valid(12, { state: "verifying" }), reason: /state: Invalid enum value/, writtenBy: "0.1.0" },
  {
    ticket: 13,
    name: "a 1 MB title",
    content: valid(13, { title: "t".repeat(1_000_000) }),
    reason: /title: String must contain at most 300/,
    writtenBy: "0.1.0",
  },
];

const BAD_LOCKS: { name: string; content: string }[] = [
  {
    name: "newer format",
    content: JSON.stringify({
      held: true,
      format: 2,
      host: { id: "ws-x", name: "x", kind: "workstation" },
      pid: 1,
      command: "ticket-runner run",
      runId: "r",
      startedAt: "2030-01-01T00:00:00.000Z",
      processStartTime: null,
      version: "9.0.0",
    }),
  },
  { name: "not JSON", content: "{ held: maybe }" },
  { name: "empty", content: "" },
  { name: "held as a string", content: '{ "held": "yes" }' },
  { name: "held with no holder", content: '{ "held": true }' },
  { name: "an array", content: "[]" },
  {
    name: "negative pid",
    content: JSON.stringify({
      held: true,
      host: { id: "ws-x", name: "x", kind: "workstation" },
      pid: -5,
      command: "c",
      runId: "r",
      startedAt: "2030-01-01T00:00:00.000Z",
      processStartTime: null,
    }),
  },
];

async function commitToBranch(fx: RemoteFixture, name: string, branch: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = await fx.clone(name);
  const exists = await git(dir, ["ls-remote", "--heads", "origin", branch]);
  if (exists) await git(dir, ["checkout", "-q", "-b", branch, `origin/${branch}`]);
  else {
    await git(dir, ["checkout", "-q", "--orphan", branch]);
    await git(dir, ["rm", "-rfq", "."]);
  }
  for (const [path, content] of Object.entries(files)) await writeFile(join(dir, path), content);
  await git(dir, ["add", "-A"]);
  await git(dir, ["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "by hand"]);
  await git(dir, ["push", "-q", "origin", `HEAD:refs/heads/${branch}`]);
  return git(dir, ["rev-parse", "HEAD"]);
}

async function blob(fx: RemoteFixture, branch: string, path: string): Promise<string> {
  return git(fx.remote, ["rev-parse", `${branch}:${path}`]);
}

describe("reliability: State files and lock files that this version cannot read", function () {
  this.timeout(60_000);
  let fx: RemoteFixture;
  let ws: GitWorkspace;
  const host = new NodeHost();

  beforeEach(async () => {
    fx = await makeRemote();
    ws = workspaceOn(await fx.clone("target"), { host });
  });
  afterEach(async () => fx.cleanup());

  it("State: each bad file is listed with its reason, never rewritten, and does not stop the good ones", async () => {
    const files: Record<string, string | Buffer> = { "ticket-1.json": valid(1), "ticket-01.json": "junk", "ticket-x.json": "junk", "notes.txt": "hi" };
    for (const b of BAD_STATES) files[`ticket-${b.ticket}.json`] = b.content;
    await commitToBranch(fx, "person", STATE, files);
    const before = new Map<number, string>();
    for (const b of BAD_STATES) before.set(b.ticket, await blob(fx, STATE, `ticket-${b.ticket}.json`));

    const read = await ws.readStates();
    assert.deepEqual(
      read.files.map((f) => f.ticket),
      [1],
      "the good file reads; names that are not State files are skipped",
    );
    const byTicket = new Map(read.unreadable.map((u) => [u.ticket, u]));
    for (const b of BAD_STATES) {
      const u = byTicket.get(b.ticket);
      assert.ok(u, `${b.name}: not reported`);
      assert.match(u.reason, b.reason, `${b.name}: ${u.reason}`);
      assert.ok(u.reason.includes(`ticket-${b.ticket}.json`), `${b.name}: the reason names the file`);
      assert.equal(u.writtenBy, b.writtenBy ?? null, b.name);
      await assert.rejects(
        ws.writeState(b.ticket, (s) => s),
        (e: unknown) => e instanceof Failure && e.reason === "invalid-record",
        `${b.name}: rewritten`,
      );
      await assert.rejects(ws.readState(b.ticket), (e: unknown) => e instanceof Failure && e.reason === "invalid-record");
    }
    assert.equal(read.unreadable.length, BAD_STATES.length);

    // Another ticket's change rewrites the branch as one snapshot: every bad file rides along unchanged.
    await ws.writeState(20, () => stateFor(20));
    for (const b of BAD_STATES) assert.equal(await blob(fx, STATE, `ticket-${b.ticket}.json`), before.get(b.ticket), `${b.name}: changed`);
    record("input.records.state", {
      what: "newer or corrupt State files are reported and left byte for byte",
      test: TEST,
      inputs: BAD_STATES.length + 2,
      losses: 0,
    });
  });

  it("lock.json: each bad file refuses the take with the way out, stays as it is, and unlock frees it", async () => {
    const holder: LockHolder = {
      host: host.identity(),
      pid: process.pid,
      command: "ticket-runner run",
      runId: "run-rel",
      startedAt: new Date().toISOString(),
      processStartTime: await host.processStartTime(process.pid),
    };
    let n = 0;
    for (const bad of BAD_LOCKS) {
      const tip = await commitToBranch(fx, `person-${n++}`, LOCK, { "lock.json": bad.content });
      await assert.rejects(ws.readLock(), (e: unknown) => e instanceof Failure && e.reason === "invalid-record", bad.name);
      const err = await ws.acquireLock(holder).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof Refusal, `${bad.name}: the take was not refused`);
      assert.equal(err.reason, "bad-input");
      assert.equal(err.details.path, `${LOCK}:lock.json`);
      assert.equal(err.details.next, "ticket-runner unlock --yes");
      assert.equal(await git(fx.remote, ["rev-parse", LOCK]), tip, `${bad.name}: the lock branch moved`);
      assert.match((await ws.unlock("reliability test")).previous, /^unreadable/, bad.name);
      assert.ok((await ws.acquireLock(holder)).ok, `${bad.name}: not takeable after unlock`);
      assert.deepEqual(await ws.releaseLock("run-rel"), { released: true, detail: "Released the lock of run run-rel." });
    }
    record("input.records.lock", {
      what: "newer or corrupt lock.json refuses the Run, is left in place, unlock frees it",
      test: TEST,
      inputs: BAD_LOCKS.length,
      losses: 0,
    });
  });
});
