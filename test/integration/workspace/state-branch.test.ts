import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { Failure } from "../../../src/core/errors";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, gitEnv, makeRemote } from "../../support/git-fixtures";
import type { WorkspaceChild } from "./support/child-process";
import { startChild } from "./support/child-process";
import { stateFor, workspaceOn } from "./support/workspace-fixture";

const BRANCH = "ticket-runner/state";

/** The branch on the remote is one commit with no parent. */
async function assertSingleParentless(remote: string): Promise<void> {
  const count = await git(remote, ["rev-list", "--count", BRANCH]);
  assert.equal(count, "1", "the State branch is always a single snapshot commit");
  assert.equal(await git(remote, ["rev-list", "--parents", "-n", "1", BRANCH]).then((l) => l.split(" ").length), 1);
}

/** Everything about the main checkout a State write must leave alone. */
async function checkoutFingerprint(root: string): Promise<string> {
  const index = await readFile(join(root, ".git", "index"));
  const parts = [
    createHash("sha256").update(index).digest("hex"),
    await git(root, ["status", "--porcelain=v1", "--untracked-files=all", "--ignored"]),
    await git(root, ["rev-parse", "HEAD"]),
    await git(root, ["symbolic-ref", "HEAD"]),
    await readFile(join(root, "work.txt"), "utf8"),
  ];
  return parts.join("\n");
}

describe("workspace: the State branch", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;

  beforeEach(async () => {
    fx = await makeRemote();
    ws = workspaceOn(await fx.clone("target"));
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("writes, changes and removes ticket-<n>.json as one parentless snapshot, human-readable", async () => {
    assert.deepEqual(await ws.readStates(), { files: [], unreadable: [] });
    await ws.writeState(8, () => stateFor(8));
    await ws.writeState(8, (cur) => ({ ...cur!, state: "implemented", pullRequest: 31 }));
    await ws.writeState(9, () => stateFor(9));
    await assertSingleParentless(fx.remote);

    const text = await git(fx.remote, ["show", `${BRANCH}:ticket-8.json`]);
    assert.match(text, /^\{\n {2}"ticket": 8,\n/);
    assert.equal(JSON.parse(text).state, "implemented");
    assert.equal((await ws.readState(8))?.pullRequest, 31);
    assert.deepEqual((await ws.readStates()).files.map((f) => f.ticket), [8, 9]);

    await ws.removeState(8);
    assert.equal(await ws.readState(8), null);
    assert.deepEqual((await ws.readStates()).files.map((f) => f.ticket), [9]);
    await assertSingleParentless(fx.remote);
  });

  it("never touches the main checkout's index or work tree", async () => {
    await commitFiles(ws.root, { "work.txt": "committed\n" }, "work");
    await writeFile(join(ws.root, "work.txt"), "a person's unstaged edit\n");
    await writeFile(join(ws.root, "staged.txt"), "staged\n");
    await git(ws.root, ["add", "staged.txt"]);
    const before = await checkoutFingerprint(ws.root);

    await ws.writeState(1, () => stateFor(1));
    await ws.keepTranscripts(1, "run-1", []);
    await ws.writeState(1, (c) => ({ ...c!, fixUsed: true }));
    await ws.removeState(1);

    assert.equal(await checkoutFingerprint(ws.root), before);
  });

  it("a change that changes nothing pushes nothing", async () => {
    await ws.writeState(2, () => stateFor(2));
    const tip = await git(fx.remote, ["rev-parse", BRANCH]);
    await ws.writeState(2, (c) => c);
    await ws.writeState(2, () => stateFor(2));
    await ws.removeState(99);
    assert.equal(await git(fx.remote, ["rev-parse", BRANCH]), tip);
  });

  it("changes in one process take turns: ten Lanes at once lose nothing", async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => ws.writeState(i + 1, () => stateFor(i + 1))));
    assert.deepEqual((await ws.readStates()).files.map((f) => f.ticket), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await assertSingleParentless(fx.remote);
  });

  it("re-reads and reapplies the change when another Host wrote first", async () => {
    const other = workspaceOn(await fx.clone("other-host"));
    await ws.writeState(1, () => stateFor(1));
    // The other Host's clone last saw nothing; its change must be applied on top of ticket 1, not over it.
    await other.writeState(2, () => stateFor(2));
    assert.deepEqual((await ws.readStates()).files.map((f) => f.ticket), [1, 2]);
  });

  it("on a lost race, re-reads and reapplies the change (up to three retries), never overwriting the winner", async () => {
    await ws.writeState(1, () => stateFor(1));
    // A rival Host's snapshot, pushed from inside our change so it lands between our read and our push.
    const rival = await fx.clone("rival", { branch: BRANCH });
    let n = 0;
    const pushRival = (): void => {
      n += 1;
      writeFileSync(join(rival, `ticket-${100 + n}.json`), `${JSON.stringify(stateFor(100 + n))}\n`);
      execFileSync("git", ["add", "-A"], { cwd: rival, env: gitEnv() });
      execFileSync("git", ["commit", "-q", "--no-gpg-sign", "-m", `rival ${n}`], { cwd: rival, env: gitEnv() });
      execFileSync("git", ["push", "-q", "origin", BRANCH], { cwd: rival, env: gitEnv() });
    };
    let calls = 0;
    await ws.writeState(2, () => {
      calls += 1;
      if (calls <= 2) pushRival();
      return stateFor(2);
    });
    assert.equal(calls, 3, "two lost races, so the change was applied three times");
    assert.deepEqual((await ws.readStates()).files.map((f) => f.ticket), [1, 2, 101, 102]);

    // A rival that wins every time: after the first try and three retries it gives up, overwriting nothing.
    await git(rival, ["fetch", "-q", "origin", BRANCH]);
    await git(rival, ["reset", "-q", "--hard", "FETCH_HEAD"]);
    calls = 0;
    await assert.rejects(
      ws.writeState(3, () => {
        calls += 1;
        pushRival();
        return stateFor(3);
      }),
      (e: unknown) => e instanceof Failure && /gave up after 4 tries/.test(e.message),
    );
    assert.equal(calls, 4);
    const read = await ws.readStates();
    assert.ok(!read.files.some((f) => f.ticket === 3));
    assert.ok(read.files.some((f) => f.ticket === 106));
  });

  it("three writers in separate processes, playing separate Hosts, write different tickets at once: no write lost", async function () {
    this.timeout(90_000);
    const children: WorkspaceChild[] = [];
    try {
      for (const name of ["a", "b", "c"]) children.push(await startChild(await fx.clone(`writer-${name}`), { TICKET_RUNNER_HOST_SESSION: `vm-${name}` }));
      for (let round = 0; round < 3; round++) {
        const replies = await Promise.all(children.map((c, i) => c.send({ op: "writeState", ticket: round * 3 + i + 1, runId: `round-${round}` })));
        for (const r of replies) assert.ok(r.ok, JSON.stringify(r));
        await assertSingleParentless(fx.remote);
      }
      const read = await ws.readStates();
      assert.deepEqual(read.files.map((f) => f.ticket), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
      assert.deepEqual(read.unreadable, []);
    } finally {
      await Promise.all(children.map((c) => c.close()));
    }
  });

  it("flags unreadable State files, naming the version that wrote them, and never rewrites them", async () => {
    await ws.writeState(1, () => stateFor(1));
    // A person (or a newer version) commits odd files straight to the branch.
    const person = await fx.clone("person", { branch: BRANCH });
    const odd = {
      "ticket-2.json": "{ not json",
      "ticket-3.json": JSON.stringify({ ...stateFor(4) }),
      "ticket-5.json": JSON.stringify({ ...stateFor(5), format: 2, version: "9.0.0" }),
      "ticket-6.json": JSON.stringify({ ...stateFor(6), version: "0.9.0", lanePriority: 3 }),
      "notes.md": "not a State file\n",
    };
    await commitFiles(person, odd, "by hand");
    await git(person, ["push", "-q", "origin", BRANCH]);

    const read = await ws.readStates();
    assert.deepEqual(read.files.map((f) => f.ticket), [1]);
    const byTicket = new Map(read.unreadable.map((u) => [u.ticket, u]));
    assert.deepEqual([...byTicket.keys()], [2, 3, 5, 6]);
    assert.match(byTicket.get(2)!.reason, /ticket-2\.json is not JSON.*"\{ not json"/);
    assert.match(byTicket.get(3)!.reason, /names ticket 4, not 3/);
    assert.match(byTicket.get(5)!.reason, /format 2, newer/);
    assert.equal(byTicket.get(5)!.writtenBy, "9.0.0");
    assert.match(byTicket.get(6)!.reason, /unknown fields lanePriority/);
    assert.equal(byTicket.get(6)!.writtenBy, "0.9.0");

    const tip = await git(fx.remote, ["rev-parse", BRANCH]);
    await assert.rejects(ws.writeState(6, () => stateFor(6)), (e: unknown) => e instanceof Failure && e.reason === "invalid-record" && /written by 0\.9\.0/.test(e.message));
    await assert.rejects(ws.removeState(5), (e: unknown) => e instanceof Failure && /left as it is/.test(e.message));
    await assert.rejects(ws.readState(2), (e: unknown) => e instanceof Failure && e.reason === "invalid-record");
    assert.equal(await git(fx.remote, ["rev-parse", BRANCH]), tip, "nothing was rewritten");

    // Writing another ticket keeps the unreadable files byte for byte.
    await ws.writeState(7, () => stateFor(7));
    for (const [path, content] of Object.entries(odd)) assert.equal(await git(fx.remote, ["show", `${BRANCH}:${path}`]), content.replace(/\n$/, ""));
  });

  it("keeps transcripts under ticket-<n>/<runId>/ on hand-off, secrets removed, and removes them with the State", async () => {
    const logDir = join(fx.root, "runs", "run-1", "8");
    const files = [
      { name: "implement.command", body: "claude -p '<prompt>'\n" },
      { name: "implement.transcript.jsonl", body: '{"type":"assistant","text":"used ghp_abcdefghijklmnopqrstuvwxyz0123456789"}\n' },
      { name: "retry/verify-2.transcript.jsonl", body: '{"type":"result"}\n' },
      { name: "version.txt", body: "0.1.0\n" },
    ];
    const { mkdir } = await import("node:fs/promises");
    for (const f of files) {
      await mkdir(join(logDir, f.name, ".."), { recursive: true });
      await writeFile(join(logDir, f.name), f.body);
    }
    await ws.writeState(8, () => stateFor(8));
    await ws.writeState(80, () => stateFor(80));
    const kept = await ws.keepTranscripts(8, "2026-09-17T09-00-00-000", [
      ...files.map((f) => ({ name: f.name, path: join(logDir, f.name) })),
      { name: "fix.transcript.jsonl", path: join(logDir, "never-written") },
    ]);
    assert.equal(kept.path, "ticket-8/2026-09-17T09-00-00-000/");
    assert.deepEqual(kept.missing, ["fix.transcript.jsonl"]);
    assert.deepEqual(await ws.listTranscripts(8), [
      "ticket-8/2026-09-17T09-00-00-000/implement.command",
      "ticket-8/2026-09-17T09-00-00-000/implement.transcript.jsonl",
      "ticket-8/2026-09-17T09-00-00-000/retry/verify-2.transcript.jsonl",
      "ticket-8/2026-09-17T09-00-00-000/version.txt",
    ]);
    const transcript = await git(fx.remote, ["show", `${BRANCH}:ticket-8/2026-09-17T09-00-00-000/implement.transcript.jsonl`]);
    assert.match(transcript, /used \*\*\*/);
    assert.doesNotMatch(transcript, /ghp_/);
    await assertSingleParentless(fx.remote);

    await ws.removeState(8);
    assert.deepEqual(await ws.listTranscripts(8), []);
    assert.equal(await git(fx.remote, ["ls-tree", "-r", "--name-only", BRANCH]), "ticket-80.json", "ticket 80's State is untouched");
  });

  it("refuses transcript names that climb out of the run's directory", async () => {
    await assert.rejects(ws.keepTranscripts(1, "run-1", [{ name: "../ticket-2.json", path: "/dev/null" }]), /not a plain relative path/);
    await assert.rejects(ws.keepTranscripts(1, "../x", []), /cannot name a directory/);
  });
});
