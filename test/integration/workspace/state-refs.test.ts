import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { Failure } from "../../../src/core/errors";
import { stateRecordRef } from "../../../src/core/schemas/state-file";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, gitEnv, makeRemote } from "../../support/git-fixtures";
import type { WorkspaceChild } from "./support/child-process";
import { startChild } from "./support/child-process";
import { stateFor, workspaceOn } from "./support/workspace-fixture";

const LEGACY = "ticket-runner/state";

async function refOn(remote: string, ref: string): Promise<string | null> {
  return git(remote, ["rev-parse", "--verify", "-q", ref]).catch(() => null);
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

/** A person (or an older version) commits files to a branch or ref of the remote from their own clone. */
async function commitByHand(fx: RemoteFixture, name: string, ref: string, files: Record<string, string>): Promise<void> {
  const person = await fx.clone(name);
  await git(person, ["checkout", "-q", "--orphan", "by-hand"]);
  await git(person, ["rm", "-rq", "--cached", "."]).catch(() => "");
  await commitFiles(person, files, "by hand");
  await git(person, ["push", "-q", "--force", "origin", `HEAD:${ref}`]);
}

describe("workspace: State records, one ref per ticket", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;

  beforeEach(async () => {
    fx = await makeRemote();
    ws = workspaceOn(await fx.clone("target"));
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("writes each ticket on its own ref, outside refs/heads, whose git log tells the ticket's story; removal deletes the ref", async () => {
    assert.deepEqual(await ws.readStates(), { files: [], unreadable: [] });
    await ws.writeState(8, () => stateFor(8));
    await ws.writeState(8, (cur) => ({ ...cur!, state: "implemented", pullRequest: 31 }));
    await ws.writeState(9, () => stateFor(9));

    assert.equal(await git(fx.remote, ["for-each-ref", "--format=%(refname)", "refs/heads/"]), "refs/heads/main", "no branch was made");
    const story = await git(fx.remote, ["log", "--format=%s", stateRecordRef(8)]);
    assert.deepEqual(story.split("\n"), ["Ticket #8: implemented (run 2026-01-01T00-00-00-000)", "Ticket #8: claimed (run 2026-01-01T00-00-00-000)"]);
    assert.equal(await git(fx.remote, ["ls-tree", "--name-only", stateRecordRef(9)]), "ticket-9.json", "a ticket's ref holds only its own record");
    const text = await git(fx.remote, ["show", `${stateRecordRef(8)}:ticket-8.json`]);
    assert.match(text, /^\{\n {2}"ticket": 8,\n/);
    assert.equal((await ws.readState(8))?.pullRequest, 31);
    assert.deepEqual(
      (await ws.readStates()).files.map((f) => f.ticket),
      [8, 9],
    );

    await ws.removeState(8);
    assert.equal(await refOn(fx.remote, stateRecordRef(8)), null);
    assert.equal(await ws.readState(8), null);
    assert.deepEqual(
      (await ws.readStates()).files.map((f) => f.ticket),
      [9],
    );
  });

  it("never touches the main checkout's index, work tree or refs", async () => {
    await commitFiles(ws.root, { "work.txt": "committed\n" }, "work");
    await writeFile(join(ws.root, "work.txt"), "a person's unstaged edit\n");
    await writeFile(join(ws.root, "staged.txt"), "staged\n");
    await git(ws.root, ["add", "staged.txt"]);
    const before = await checkoutFingerprint(ws.root);
    const refs = await git(ws.root, ["for-each-ref"]);

    await ws.writeState(1, () => stateFor(1));
    await ws.keepTranscripts(1, "run-1", []);
    await ws.writeState(1, (c) => ({ ...c!, fixUsed: true }));
    await ws.removeState(1);

    assert.equal(await checkoutFingerprint(ws.root), before);
    assert.equal(await git(ws.root, ["for-each-ref"]), refs, "no local ref was written");
  });

  it("a change that changes nothing pushes nothing", async () => {
    await ws.writeState(2, () => stateFor(2));
    const tip = await refOn(fx.remote, stateRecordRef(2));
    await ws.writeState(2, (c) => c);
    await ws.writeState(2, () => stateFor(2));
    await ws.removeState(99);
    assert.equal(await refOn(fx.remote, stateRecordRef(2)), tip);
    assert.equal(await refOn(fx.remote, stateRecordRef(99)), null);
  });

  it("after a full listing, a ticket it did not show is written as new without a listing of its own, and a record a rival made meanwhile is kept, never overwritten (ADR 0400)", async () => {
    await ws.writeState(1, () => stateFor(1));
    assert.deepEqual(
      (await ws.readStates()).files.map((f) => f.ticket),
      [1],
    );
    // A rival Host writes #5 and #6 after our listing: our reads of them go from the listing ("none")...
    const rival = workspaceOn(await fx.clone("rival"));
    await rival.writeState(5, () => stateFor(5, { title: "the rival's" }));
    await rival.writeState(6, () => stateFor(6, { title: "the rival's" }));
    assert.equal(await ws.readState(5), null, "read from the listing, with no listing of its own");
    // ...but the first write's lease refuses the guess, so the change is applied to the rival's record.
    const seen: (string | null)[] = [];
    const written = await ws.writeState(5, (cur) => {
      seen.push(cur?.title ?? null);
      return cur ?? stateFor(5, { title: "ours" });
    });
    assert.deepEqual(seen, [null, "the rival's"], "tried on the guess, then on the record the push found");
    assert.equal(written?.title, "the rival's");
    assert.equal((await rival.readState(5))?.title, "the rival's", "the rival's record is kept");
    // A removal on the guess ("nothing to remove", so no push a lease could check) reads for real first.
    await ws.removeState(6);
    assert.equal(await refOn(fx.remote, stateRecordRef(6)), null, "the removal was not skipped on the guess");
  });

  it("ten Lanes at once on ten tickets lose nothing, and two changes to one ticket take turns", async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => ws.writeState(i + 1, () => stateFor(i + 1))));
    assert.deepEqual(
      (await ws.readStates()).files.map((f) => f.ticket),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    await Promise.all([ws.writeState(1, (c) => ({ ...c!, fixUsed: true })), ws.writeState(1, (c) => ({ ...c!, pullRequest: 5 }))]);
    const one = await ws.readState(1);
    assert.equal(one?.fixUsed, true);
    assert.equal(one?.pullRequest, 5);
  });

  it("on a lost race for the same ticket, re-reads and reapplies the change (up to three retries), never overwriting the winner", async () => {
    await ws.writeState(1, () => stateFor(1));
    // A rival Host's change to the same ticket, pushed from inside our change so it lands between our read and our push.
    const rival = await fx.clone("rival");
    let n = 0;
    const pushRival = (): void => {
      n += 1;
      const run = (args: string[]) => execFileSync("git", args, { cwd: rival, env: gitEnv() });
      run(["fetch", "-q", "origin", stateRecordRef(1)]);
      run(["checkout", "-q", "--detach", "FETCH_HEAD"]);
      writeFileSync(join(rival, "ticket-1.json"), `${JSON.stringify(stateFor(1, { title: `rival ${n}` }), null, 2)}\n`);
      run(["commit", "-q", "--no-gpg-sign", "-am", `rival ${n}`]);
      run(["push", "-q", "origin", `HEAD:${stateRecordRef(1)}`]);
    };
    let calls = 0;
    await ws.writeState(1, (cur) => {
      calls += 1;
      if (calls <= 2) pushRival();
      return { ...cur!, fixUsed: true };
    });
    assert.equal(calls, 3, "two lost races, so the change was applied three times");
    const after = await ws.readState(1);
    assert.equal(after?.title, "rival 2", "the winner's change is kept");
    assert.equal(after?.fixUsed, true);

    // A rival that wins every time: after the first try and three retries it gives up, overwriting nothing.
    calls = 0;
    await assert.rejects(
      ws.writeState(1, (cur) => {
        calls += 1;
        pushRival();
        return { ...cur!, pullRequest: 77 };
      }),
      (e: unknown) => e instanceof Failure && /gave up after 4 tries/.test(e.message),
    );
    assert.equal(calls, 4);
    const last = await ws.readState(1);
    assert.equal(last?.title, "rival 6");
    assert.equal(last?.pullRequest, null);
  });

  it("three writers in separate processes, playing separate Hosts, write different tickets at once: no write lost, no race lost", async function () {
    this.timeout(90_000);
    const children: WorkspaceChild[] = [];
    try {
      for (const name of ["a", "b", "c"]) children.push(await startChild(await fx.clone(`writer-${name}`), { TICKET_RUNNER_HOST_SESSION: `vm-${name}` }));
      for (let round = 0; round < 3; round++) {
        const replies = await Promise.all(children.map((c, i) => c.send({ op: "writeState", ticket: round * 3 + i + 1, runId: `round-${round}` })));
        for (const r of replies) assert.ok(r.ok, JSON.stringify(r));
      }
      const read = await ws.readStates();
      assert.deepEqual(
        read.files.map((f) => f.ticket),
        [1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
      assert.deepEqual(read.unreadable, []);
      for (let t = 1; t <= 9; t++)
        assert.equal(await git(fx.remote, ["rev-list", "--count", stateRecordRef(t)]), "1", `#${t} was written once: nobody had to retry`);
    } finally {
      await Promise.all(children.map((c) => c.close()));
    }
  });

  it("flags unreadable State files, naming the version that wrote them, and never rewrites them", async () => {
    await ws.writeState(1, () => stateFor(1));
    const odd: Record<number, string> = {
      2: "{ not json",
      3: JSON.stringify({ ...stateFor(4) }),
      5: JSON.stringify({ ...stateFor(5), format: 2, version: "9.0.0" }),
      6: JSON.stringify({ ...stateFor(6), version: "0.9.0", lanePriority: 3 }),
    };
    for (const [t, content] of Object.entries(odd))
      await commitByHand(fx, `person-${t}`, stateRecordRef(Number(t)), { [`ticket-${t}.json`]: content, "notes.md": "not a State file\n" });

    const read = await ws.readStates();
    assert.deepEqual(
      read.files.map((f) => f.ticket),
      [1],
    );
    const byTicket = new Map(read.unreadable.map((u) => [u.ticket, u]));
    assert.deepEqual([...byTicket.keys()], [2, 3, 5, 6]);
    assert.match(byTicket.get(2)!.reason, /ticket-2\.json is not JSON.*"\{ not json"/);
    assert.equal(byTicket.get(2)!.path, `${stateRecordRef(2)}:ticket-2.json`);
    assert.match(byTicket.get(3)!.reason, /names ticket 4, not 3/);
    assert.match(byTicket.get(5)!.reason, /format 2, newer/);
    assert.equal(byTicket.get(5)!.writtenBy, "9.0.0");
    assert.match(byTicket.get(6)!.reason, /unknown fields lanePriority/);
    assert.equal(byTicket.get(6)!.writtenBy, "0.9.0");

    const tips = await Promise.all([5, 6].map((t) => refOn(fx.remote, stateRecordRef(t))));
    await assert.rejects(
      ws.writeState(6, () => stateFor(6)),
      (e: unknown) => e instanceof Failure && e.reason === "invalid-record" && /written by 0\.9\.0/.test(e.message),
    );
    await assert.rejects(ws.removeState(5), (e: unknown) => e instanceof Failure && /left as it is on refs\/ticket-runner\/state\/5/.test(e.message));
    await assert.rejects(ws.readState(2), (e: unknown) => e instanceof Failure && e.reason === "invalid-record");
    assert.deepEqual(await Promise.all([5, 6].map((t) => refOn(fx.remote, stateRecordRef(t)))), tips, "nothing was rewritten");
  });

  it("reads State files an older version left on the ticket-runner/state branch, moves each to its own ref on its next change, and drains the branch", async () => {
    await commitByHand(fx, "older-version", `refs/heads/${LEGACY}`, {
      "ticket-3.json": `${JSON.stringify(stateFor(3, { state: "implemented" }))}\n`,
      "ticket-4.json": `${JSON.stringify(stateFor(4))}\n`,
      "ticket-4/run-0/implement.command": "claude -p x\n",
      "ticket-7.json": "{ broken",
    });
    await ws.writeState(5, () => stateFor(5));
    const read = await ws.readStates();
    assert.deepEqual(
      read.files.map((f) => f.ticket),
      [3, 4, 5],
    );
    assert.deepEqual(
      read.unreadable.map((u) => u.path),
      [`${LEGACY}:ticket-7.json`],
    );
    assert.equal((await ws.readState(3))?.state, "implemented");
    assert.deepEqual(await ws.listTranscripts(4), ["ticket-4/run-0/implement.command"]);

    // Resumed on this Host: its next change moves it, transcripts and all, and takes it off the old branch.
    await ws.writeState(4, (c) => ({ ...c!, state: "implemented" }));
    assert.equal(await git(fx.remote, ["ls-tree", "-r", "--name-only", stateRecordRef(4)]), "ticket-4.json\nticket-4/run-0/implement.command");
    assert.equal(await git(fx.remote, ["ls-tree", "-r", "--name-only", `refs/heads/${LEGACY}`]), "ticket-3.json\nticket-7.json");
    // Removing a State only the old branch holds takes it off there: it never comes back.
    await ws.removeState(3);
    assert.equal(await ws.readState(3), null);
    assert.deepEqual(
      (await ws.readStates()).files.map((f) => f.ticket),
      [4, 5],
    );
    assert.equal(await git(fx.remote, ["ls-tree", "-r", "--name-only", `refs/heads/${LEGACY}`]), "ticket-7.json", "the unreadable file is left as it is");
  });

  it("keeps transcripts under ticket-<n>/<runId>/ in the ticket's record, secrets removed, and removes them with the State", async () => {
    const logDir = join(fx.root, "runs", "run-1", "8");
    const files = [
      { name: "implement.command", body: "claude -p '<prompt>'\n" },
      { name: "implement.transcript.jsonl", body: '{"type":"assistant","text":"used ghp_abcdefghijklmnopqrstuvwxyz0123456789"}\n' },
      { name: "retry/verify-2.transcript.jsonl", body: '{"type":"result"}\n' },
      { name: "version.txt", body: "0.1.0\n" },
    ];
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
    const transcript = await git(fx.remote, ["show", `${stateRecordRef(8)}:ticket-8/2026-09-17T09-00-00-000/implement.transcript.jsonl`]);
    assert.match(transcript, /used \*\*\*/);
    assert.doesNotMatch(transcript, /ghp_/);
    assert.equal(await git(fx.remote, ["log", "-1", "--format=%s", stateRecordRef(8)]), "Ticket #8: transcripts of run 2026-09-17T09-00-00-000");

    await ws.removeState(8);
    assert.deepEqual(await ws.listTranscripts(8), []);
    assert.equal(await git(fx.remote, ["ls-tree", "-r", "--name-only", stateRecordRef(80)]), "ticket-80.json", "ticket 80's State is untouched");
  });

  it("refuses transcript names that climb out of the run's directory", async () => {
    await assert.rejects(ws.keepTranscripts(1, "run-1", [{ name: "../ticket-2.json", path: "/dev/null" }]), /not a plain relative path/);
    await assert.rejects(ws.keepTranscripts(1, "../x", []), /cannot name a directory/);
  });
});
