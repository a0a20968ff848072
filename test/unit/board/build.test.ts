import { strict as assert } from "node:assert";
import { buildBoard } from "../../../src/core/board/build";
import type { BoardModel, BoardRow } from "../../../src/core/board/types";
import type { LeaseRecord } from "../../../src/core/claims/lease-standing";
import { HERE, LAPTOP, NOW, input, issue, lease, local, minutes, oneOfEach, reading } from "./board-fixtures";

function row(model: BoardModel, n: number): BoardRow {
  for (const s of model.sections) for (const r of s.rows) if (r.number === n) return r;
  assert.fail(`no row for #${n}`);
}

describe("board model: sections and counts", () => {
  it("puts one ticket of each state in its section, in the spec's order, with counts", () => {
    const model = buildBoard(oneOfEach());
    assert.deepEqual(
      model.sections.map((s) => [s.title, s.count, s.rows.map((r) => r.number)]),
      [
        ["Running here", 1, [1]],
        ["Claimed elsewhere", 2, [2, 7]],
        ["Stale", 1, [3]],
        ["Frontier (ready)", 1, [4]],
        ["Blocked", 0, []],
        ["Needs a person", 1, [5]],
        ["Stranded", 1, [6]],
      ],
    );
    assert.equal(model.runningHere, 1);
    assert.equal(model.total, 7);
  });

  it("keeps a ready ticket blocked by an open issue off the Frontier: Blocked, 'blocked by #n', nothing to Start or Claim", () => {
    const model = buildBoard(
      input([issue(8, { labels: ["ready-for-agent"], openBlockers: ["#3", "acme/api#12"] }), issue(9, { labels: ["ready-for-agent"] })]),
    );
    const blocked = row(model, 8);
    assert.equal(blocked.section, "blocked");
    assert.equal(blocked.marker, "blocked");
    assert.equal(blocked.runColumn, "blocked by #3, acme/api#12");
    assert.equal(blocked.contextValue, "ticketRunner:ticket", "neither +free (Start, Claim) nor +claimed");
    assert.deepEqual(
      model.sections.find((s) => s.id === "frontier")?.rows.map((r) => r.number),
      [9],
    );
  });

  it("writes the Run column as the spec shows it", () => {
    const model = buildBoard(oneOfEach());
    assert.equal(row(model, 1).runColumn, "● desk · implement · 12m");
    assert.equal(row(model, 2).runColumn, "◌ laptop-2 · expires in 31m");
    assert.equal(row(model, 3).runColumn, "⚠ stale 2h · laptop-2");
    assert.equal(row(model, 4).runColumn, "free");
    assert.equal(row(model, 5).runColumn, "waiting for a person");
    assert.equal(row(model, 6).runColumn, "stranded · desk · verify");
    assert.equal(row(model, 7).runColumn, "person · cy");
  });

  it("gives each state its marker and spins only what runs here", () => {
    const model = buildBoard(oneOfEach());
    const markers = [1, 2, 3, 4, 5, 6, 7].map((n) => [row(model, n).marker, row(model, n).spinning]);
    assert.deepEqual(markers, [
      ["running", true],
      ["claimed-elsewhere", false],
      ["stale", false],
      ["free", false],
      ["needs-person", false],
      ["stranded", false],
      ["person", false],
    ]);
  });

  it("composes contextValue from parts in a fixed order", () => {
    const model = buildBoard(oneOfEach());
    assert.equal(row(model, 1).contextValue, "ticketRunner:ticket+claimed+mine+here+running+lease+worktree+transcript");
    assert.equal(row(model, 2).contextValue, "ticketRunner:ticket+claimed+lease");
    assert.equal(row(model, 3).contextValue, "ticketRunner:ticket+claimed+stale+lease");
    assert.equal(row(model, 4).contextValue, "ticketRunner:ticket+free");
    assert.equal(row(model, 5).contextValue, "ticketRunner:ticket+human");
    assert.equal(row(model, 6).contextValue, "ticketRunner:ticket+claimed+mine+here+stranded+lease+worktree+transcript");
    assert.equal(row(model, 7).contextValue, "ticketRunner:ticket+claimed+person+lease");
  });

  it("links a claimed row to its lease comment and a free row to nothing but the issue", () => {
    const model = buildBoard(oneOfEach());
    assert.match(row(model, 2).leaseUrl ?? "", /issues\/2#issuecomment-4294967298$/);
    assert.equal(row(model, 4).leaseUrl, null);
    assert.equal(row(model, 4).issueUrl, "https://github.com/acme/shop/issues/4");
  });

  it("keeps ids stable across rebuilds and moves", () => {
    const a = buildBoard(oneOfEach());
    const later = oneOfEach();
    later.now = new Date(NOW.getTime() + 3 * 3600_000);
    const b = buildBoard(later);
    assert.equal(row(a, 2).id, "acme/shop#2");
    assert.equal(row(b, 2).id, "acme/shop#2");
    assert.equal(row(b, 2).section, "stale", "three hours later laptop-2's lease has expired");
  });

  it("filters to mine: held by this user or this Host", () => {
    const model = buildBoard(oneOfEach(), "mine");
    assert.deepEqual(
      model.sections.flatMap((s) => s.rows.map((r) => r.number)),
      [1, 6],
    );
    assert.equal(model.filter, "mine");
  });
});

describe("board model: claims and records", () => {
  it("shows a local claim before GitHub has the lease", () => {
    const model = buildBoard(input([issue(9)], [local(9)]));
    assert.equal(row(model, 9).section, "running-here");
    assert.equal(row(model, 9).runColumn, "● desk · claiming · 20m");
  });

  it("never lets a person's claim go stale", () => {
    const l = lease(8, { holder: "person", user: "cy", host: LAPTOP, expiresAt: minutes(-600) });
    const model = buildBoard(input([issue(8, { labels: ["in-progress"], readings: [reading(l)] })]));
    assert.equal(row(model, 8).section, "claimed-elsewhere");
    assert.equal(row(model, 8).runColumn, "person · cy");
  });

  it("picks the live lease whose comment landed first (the smallest id), whatever claimedAt and nonce say (ADR 0380)", () => {
    const stampedFirst = lease(10, { host: LAPTOP, user: "bob", claimedAt: minutes(-30), nonce: "aaaaaaaa" });
    const landedFirst = lease(10, { claimedAt: minutes(-29), nonce: "zzzzzzzz" });
    const model = buildBoard(
      input([issue(10, { labels: ["in-progress"], readings: [reading(stampedFirst, "3076667590"), reading(landedFirst, "3076667582")] })]),
    );
    assert.equal(row(model, 10).holder?.hostName, "desk");
    const a = lease(11, { host: LAPTOP, claimedAt: minutes(-30), nonce: "bbbbbbbb" });
    const b = lease(11, { claimedAt: minutes(-30), nonce: "aaaaaaaa" });
    const tie = buildBoard(
      input([issue(11, { labels: ["in-progress"], readings: [reading(b, "9007199254740993"), reading(a, "9007199254740992")] })], [local(11)]),
    );
    assert.equal(row(tie, 11).holder?.hostName, "laptop-2", "ids past 2^53 compared exactly");
  });

  it("prefers an unexpired lease over an expired one during a take-over-stale", () => {
    const old = lease(12, { host: LAPTOP, claimedAt: minutes(-300), expiresAt: minutes(-60) });
    const taker = lease(12, { claimedAt: minutes(-1), expiresAt: minutes(44) });
    const model = buildBoard(input([issue(12, { labels: ["in-progress"], readings: [reading(old, "1"), reading(taker, "2")] })], [local(12)]));
    assert.equal(row(model, 12).section, "running-here");
  });

  it("follows a take-over: the displaced lease holds nothing even before its comment is rewritten", () => {
    const old = lease(22, { host: LAPTOP, claimedAt: minutes(-300), expiresAt: minutes(30), nonce: "old-nonce-1" });
    const taker = lease(22, { claimedAt: minutes(-1), takeover: { from: "old-nonce-1", kind: "take-over", at: minutes(-1) } });
    const model = buildBoard(input([issue(22, { labels: ["in-progress"], readings: [reading(old, "1"), reading(taker, "2")] })], [local(22)]));
    assert.equal(row(model, 22).section, "running-here");
  });

  it("shows the latest record on a Frontier ticket: finished, released, yielded, handed off", () => {
    const cases = [
      ["finished", "finished 5m ago · desk", "finished"],
      ["released", "released 5m ago · desk", "released"],
      ["race-yielded", "yielded 5m ago · desk", "yielded"],
      ["handed-off", "handed off 5m ago · desk", "free"],
    ] as const;
    for (const [state, text, marker] of cases) {
      const model = buildBoard(input([issue(13, { readings: [reading(lease(13, { state }))] })]));
      assert.equal(row(model, 13).runColumn, text, state);
      assert.equal(row(model, 13).marker, marker, state);
      assert.equal(row(model, 13).section, "frontier", state);
    }
  });

  it("names when the limit resets on a ticket a rate limit released, until it has", () => {
    const limited = buildBoard(input([issue(13, { readings: [reading(lease(13, { state: "released", limitResetsAt: minutes(52) }))] })]));
    assert.equal(row(limited, 13).runColumn, "released 5m ago · desk · limit resets 2026-03-01 12:52 UTC");
    assert.equal(row(limited, 13).lease?.limitResetsAt, minutes(52), "kept for tooltips and --json");
    const over = buildBoard(input([issue(13, { readings: [reading(lease(13, { state: "released", limitResetsAt: minutes(-1) }))] })]));
    assert.equal(row(over, 13).runColumn, "released 5m ago · desk");
    // Only a release says it: a reset time on any other record is not the board's to show.
    const handedOff = buildBoard(
      input([issue(13, { labels: ["ready-for-human"], readings: [reading(lease(13, { state: "handed-off", limitResetsAt: minutes(52) }))] })]),
    );
    assert.equal(row(handedOff, 13).runColumn, "handed off 5m ago · desk");
  });

  it("reads the older finished form as a record, not a claim", () => {
    const legacy = {
      lease: null,
      finished: true,
      comment: { id: "5", url: "u", author: "ana", createdAt: minutes(-60 * 24 * 3), updatedAt: minutes(-60 * 24 * 3) },
    };
    const model = buildBoard(input([issue(14, { readings: [legacy] })]));
    assert.equal(row(model, 14).runColumn, "finished 3d ago");
  });

  it("shows a hand-off on a ticket waiting for a person", () => {
    const l = lease(15, { state: "handed-off" });
    const model = buildBoard(input([issue(15, { labels: ["ready-for-human"], readings: [reading(l)] })]));
    assert.equal(row(model, 15).section, "needs-person");
    assert.equal(row(model, 15).runColumn, "handed off 5m ago · desk");
    const assigned = buildBoard(input([issue(15, { labels: ["ready-for-human"], assignees: ["dee"] })]));
    assert.equal(row(assigned, 15).runColumn, "person · dee");
  });

  it("treats in-progress without a lease as a claim by hand, and ours as stranded", () => {
    const byHand = buildBoard(input([issue(16, { labels: ["in-progress"], assignees: ["eve"] })]));
    assert.equal(row(byHand, 16).section, "claimed-elsewhere");
    assert.equal(row(byHand, 16).runColumn, "person · eve");
    assert.match(row(byHand, 16).notes.join(" "), /without a lease comment/);
    const ours = buildBoard(input([issue(16, { labels: ["in-progress"], assignees: ["ana"] })], [local(16, { alive: false })]));
    assert.equal(row(ours, 16).section, "stranded");
  });

  it("notes a local run displaced by another Host", () => {
    const model = buildBoard(input([issue(17, { labels: ["in-progress"], readings: [reading(lease(17, { host: LAPTOP }))] })], [local(17)]));
    assert.equal(row(model, 17).section, "claimed-elsewhere");
    assert.match(row(model, 17).notes.join(" "), /yields at its next heartbeat/);
  });

  it("leaves out open issues that are not tickets, and lists ignored leases in notes", () => {
    const model = buildBoard(input([issue(18, { labels: ["bug"] }), issue(19, { ignored: [{ url: "c1", reason: "author mallory has no write access" }] })]));
    assert.equal(model.total, 1);
    assert.deepEqual(row(model, 19).notes, ["Ignored c1: author mallory has no write access"]);
  });

  it("uses the first copy when a page boundary repeats an issue", () => {
    const model = buildBoard(input([issue(20), issue(20, { labels: ["ready-for-human"] })]));
    assert.equal(model.total, 1);
    assert.equal(row(model, 20).section, "frontier");
  });

  it("counts a machine lease of this Host with no live run as stranded even when expired", () => {
    const l = lease(21, { host: HERE, expiresAt: minutes(-90) });
    const model = buildBoard(input([issue(21, { labels: ["in-progress"], readings: [reading(l)] })]));
    assert.equal(row(model, 21).section, "stranded");
  });

  it("shows a lease a newer Ticket Runner wrote as a claim held elsewhere, with its link and a note, even before an earlier claim of ours (ADR 0421)", () => {
    const ours = reading(lease(22, { host: HERE }), "4294967300");
    const newer: LeaseRecord = { ...reading(lease(22, { user: "bob" }), "4294967400"), lease: null, newer: 2 };
    const model = buildBoard(input([issue(22, { labels: ["in-progress"], assignees: ["bob"], readings: [ours, newer] })]));
    const r = row(model, 22);
    assert.equal(r.section, "claimed-elsewhere");
    assert.equal(r.marker, "claimed-elsewhere");
    assert.equal(r.runColumn, "◌ newer Ticket Runner · bob");
    assert.equal(r.leaseUrl, newer.comment.url);
    assert.equal(r.mine, false);
    assert.match(r.notes.join("\n"), /newer Ticket Runner \(lease version 2\).*will not take, take over or release/);
  });
});
