import { strict as assert } from "node:assert";
import type { StateFile } from "../../../src/core/schemas/state-file";
import { World } from "./world";

function stateFor(w: World, n: number, over: Partial<StateFile> = {}): StateFile {
  const issue = w.issue(n);
  return {
    ticket: n,
    branch: w.ws.branchFor(n, issue.title),
    state: "implemented",
    fixUsed: false,
    pullRequest: null,
    title: "feat: x",
    runId: "old-run",
    version: "0.1.0",
    updatedAt: "2026-09-17T08:00:00.000Z",
    ...over,
  };
}

/** A ticket a killed Run left: our Claim on the board, its work on the remote, its State file. */
function strand(w: World, title: string, over: Partial<StateFile> = {}): number {
  const n = w.ticket(title, { labels: ["in-progress"] });
  w.issue(n).assignees.push("bot");
  const s = stateFor(w, n, over);
  w.remote.states.set(n, s);
  w.remote.branches.set(s.branch, [...w.remote.branches.get("main")!, `work${n}`]);
  return n;
}

describe("Run: the sweep of State files", () => {
  let w: World;
  beforeEach(() => (w = new World()));
  afterEach(() => w.dispose());

  it("still carrying this user's Claim: Stranded, resumed in place, Claim untouched, nobody notified", async () => {
    const n = strand(w, "Killed mid-run");
    const summary = await w.run().start();
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.ok(w.gate.calls.includes(`adopt #${n}`));
    assert.ok(!w.gate.calls.includes(`claim #${n}`));
    assert.equal(w.agent.count(n, "implement"), 0);
  });

  it("a record another Host's live Run wrote moments ago (its lock held): left to it, without a take (ADR 0441)", async () => {
    const peer = {
      host: { id: "cloud-b", name: "host-b", kind: "cloud" as const },
      pid: 7,
      command: "ticket-runner run",
      runId: "peer-run",
      startedAt: w.clock.now().toISOString(),
      processStartTime: null,
    };
    w.remote.peerLocks = [peer];
    const n = strand(w, "Claimed a second ago by host-b", { runId: "peer-run", updatedAt: w.clock.now().toISOString() });
    const summary = await w.run().start();
    assert.ok(!w.gate.calls.includes(`adopt #${n}`), "no take of another Host's live claim");
    assert.ok(!summary.rows.some((r) => r.ticket === n), "not even a skipped row");
    assert.ok(w.log.has("holds it, and its lock; left to it"));
  });

  it("the same record older than a lease's lifetime: Stranded as before (its Run may be gone, its lease expired)", async () => {
    const peer = {
      host: { id: "cloud-b", name: "host-b", kind: "cloud" as const },
      pid: 7,
      command: "ticket-runner run",
      runId: "peer-run",
      startedAt: w.clock.now().toISOString(),
      processStartTime: null,
    };
    w.remote.peerLocks = [peer];
    const n = strand(w, "Claimed long ago by host-b", { runId: "peer-run", updatedAt: new Date(w.clock.now().getTime() - 46 * 60_000).toISOString() });
    await w.run().start();
    assert.ok(w.gate.calls.includes(`adopt #${n}`));
  });

  it("Claim off (ready-for-agent): nothing from the sweep; the Frontier picks it up", async () => {
    const n = w.ticket("Released before");
    w.remote.states.set(n, stateFor(w, n));
    w.remote.branches.set(stateFor(w, n).branch, [...w.remote.branches.get("main")!, "w1"]);
    const summary = await w.run().start();
    assert.ok(w.gate.calls.includes(`claim #${n}`), "taken through the claim protocol, as a Frontier ticket");
    assert.equal(summary.rows[0]!.ending, "merged");
    assert.equal(w.agent.count(n, "implement"), 0, "and resumed from its State");
  });

  it("Claim off (ready-for-human): passed over without a word; it waits for a person", async () => {
    const n = w.ticket("Handed off before", { labels: ["ready-for-human"] });
    w.remote.states.set(n, stateFor(w, n));
    const before = w.comments(n).length;
    const summary = await w.run().start();
    assert.equal(summary.rows.length, 0);
    assert.equal(w.comments(n).length, before);
    assert.ok(w.state(n), "the State file is inert until the relabel");
  });

  it("closed: removes the State file and any kept transcripts", async () => {
    const n = w.ticket("Finished by hand");
    w.remote.states.set(n, stateFor(w, n));
    w.remote.transcripts.set(`ticket-${n}/old-run/`, ["implement.command"]);
    w.issue(n).state = "closed";
    await w.run().start();
    assert.equal(w.state(n), null);
    assert.equal(w.remote.transcripts.size, 0);
  });

  it("assigned to someone else: says at the default level (a warning) who holds it, and leaves it", async () => {
    const n = w.ticket("Taken by a person", { labels: ["in-progress"] });
    w.issue(n).assignees.push("bob");
    w.remote.states.set(n, stateFor(w, n));
    await w.run().start();
    assert.ok(w.log.has(`warn #${n} is resumable, but @bob holds it now; this Run leaves it to them`), w.log.lines.join("\n"));
    assert.ok(w.state(n));
    assert.equal(w.agent.calls.length, 0);
  });

  it("the tracker cannot be asked: logs it and leaves it, never resuming or forgetting on a guess", async () => {
    const n = strand(w, "Unreachable");
    const tracker = w.gh.client("bot");
    const real = tracker.getIssue.bind(tracker);
    let first = true;
    tracker.getIssue = async (num) => {
      if (num === n && first) {
        first = false;
        throw new Error("502 Bad Gateway");
      }
      return real(num);
    };
    const summary = await w.run({}, { tracker }).start();
    assert.ok(w.log.has(`#${n}: the tracker could not be asked about it`));
    assert.equal(summary.rows.length, 0);
    assert.ok(w.state(n));
    assert.ok(w.issue(n).labels.includes("in-progress"));
  });

  it("a State file this Version cannot use: logged with the version that wrote it; file and Claim left alone", async () => {
    w.remote.unreadable.push({ path: "ticket-7.json", reason: "unknown format 2", writtenBy: "9.9.9", ticket: 7 });
    await w.run().start();
    assert.ok(w.log.has("#7 has a State file this Version cannot use, written by 9.9.9"));
  });

  it("Stranded tickets fill the Lanes first, lowest first; the Frontier is not asked while they fill every Lane", async () => {
    const s2 = strand(w, "Stranded two");
    const s1 = strand(w, "Stranded one");
    const f = w.ticket("Frontier");
    const asked: number[] = [];
    const tracker = w.gh.client("bot");
    const real = tracker.listOpenIssues.bind(tracker);
    tracker.listOpenIssues = async (labels) => {
      asked.push(run.holding().length);
      return real(labels);
    };
    const lanesSeen: number[][] = [];
    const run = w.run({ lanes: 2 }, { tracker });
    run.events.subscribe((e) => {
      if (e.kind === "lane-started") lanesSeen.push(run.holding());
    });
    const summary = await run.start();
    assert.deepEqual(lanesSeen[0], [Math.min(s1, s2)]);
    assert.deepEqual(
      lanesSeen[1],
      [s1, s2].sort((a, b) => a - b),
    );
    assert.deepEqual(
      summary.rows.map((r) => r.ending),
      ["merged", "merged", "merged"],
    );
    assert.ok(summary.rows.some((r) => r.ticket === f));
    assert.equal(lanesSeen.length, 3);
    assert.ok(asked.length >= 1);
    assert.ok(
      asked.every((held) => held < 2),
      `the Frontier was asked while both Lanes held Stranded tickets: ${asked.join(",")}`,
    );
    assert.equal(
      summary.rows.findIndex((r) => r.ticket === f),
      2,
    );
  });

  it("a narrowed Run sweeps only its own tickets and leaves every other Stranded ticket", async () => {
    const s1 = strand(w, "Stranded one");
    const s2 = strand(w, "Stranded two");
    const summary = await w.run({ tickets: [s2] }).start();
    assert.deepEqual(
      summary.rows.map((r) => r.ticket),
      [s2],
    );
    assert.ok(w.state(s1), "left for the next unnarrowed Run");
    assert.ok(!w.gate.calls.includes(`adopt #${s1}`));
  });

  it("a Stranded ticket and a Frontier ticket run side by side with two Lanes", async () => {
    const s = strand(w, "Stranded");
    const f = w.ticket("Frontier");
    let both = false;
    const run = w.run({ lanes: 2 });
    run.events.subscribe((e) => {
      if (e.kind === "lane-started" && run.holding().length === 2) both = true;
    });
    const summary = await run.start();
    assert.ok(both);
    assert.deepEqual(summary.rows.map((r) => r.ticket).sort(), [s, f].sort());
  });
});
