import { strict as assert } from "node:assert";
import { BoardLoader } from "../../../src/core/board/load";
import type { MarkerParser } from "../../../src/core/board/lease-readings";
import { buildBoard } from "../../../src/core/board/build";
import { leaseSchema } from "../../../src/core/schemas/lease";
import type { Clock } from "../../../src/ports/clock";
import type { Log } from "../../../src/ports/log";
import { FakeBoardSource, comment } from "../../fakes/fake-board-source";
import { HERE, LAPTOP, NOW, lease, minutes } from "./board-fixtures";

/** A stand-in for the claims parser: `<!-- test-lease -->` then the lease JSON. Test-only. */
const parse: MarkerParser = (c, target) => {
  if (c.body === "legacy finished") return { kind: "finished-legacy" };
  if (!c.body.startsWith("<!-- test-lease -->\n")) return { kind: "none" };
  const r = leaseSchema.safeParse(JSON.parse(c.body.slice(20)));
  if (!r.success) return { kind: "ignored", reason: "malformed lease" };
  if (r.data.issue !== target.issue) return { kind: "ignored", reason: "names another issue" };
  return { kind: "lease", lease: r.data };
};
const body = (l: object): string => `<!-- test-lease -->\n${JSON.stringify(l)}`;

const clock: Clock = { now: () => NOW, sleep: async () => undefined };
const logged: string[] = [];
const log: Log = { debug: () => undefined, info: (m) => void logged.push(m), warn: (m) => void logged.push(m), error: (m) => void logged.push(m) };
const labels = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" };

function loader(source: FakeBoardSource): BoardLoader {
  return new BoardLoader({ source, parse, readLocal: async () => [], host: HERE, labels, clock, log, lastComments: 3 });
}
const chatter = (n: number): ReturnType<typeof comment>[] => Array.from({ length: n }, (_, i) => comment(`chat ${i}`, "zed"));

describe("board loader", () => {
  it("reads a lease among the last comments with no extra request", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("bob", "write");
    source.issues = [{ number: 2, labels: ["in-progress"], assignees: ["bob"], comments: [comment(body(lease(2, { host: LAPTOP, user: "bob" })), "bob")] }];
    const { input, cost } = await loader(source).load();
    assert.equal(input.issues[0]?.readings.length, 1);
    assert.deepEqual([cost.requests, cost.extraComments, cost.permissionChecks], [2, 0, 1]);
  });

  it("spends one more request only on a claimed issue whose lease is older than the last comments", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("bob", "write");
    const old = comment(body(lease(2, { host: LAPTOP, user: "bob" })), "bob");
    source.issues = [
      { number: 2, labels: ["in-progress"], assignees: ["bob"], comments: [old, ...chatter(5)] },
      { number: 3, labels: ["ready-for-agent"], comments: chatter(50) },
    ];
    const { input, cost } = await loader(source).load();
    assert.deepEqual(source.calls.allComments, [2]);
    assert.equal(cost.extraComments, 1);
    assert.equal(buildBoard(input).sections.find((s) => s.id === "claimed-elsewhere")?.count, 1);
  });

  it("ignores a lease from an author without write access, and says so", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("mallory", "read");
    source.issues = [{ number: 4, labels: ["ready-for-agent"], comments: [comment(body(lease(4, { user: "mallory", host: LAPTOP })), "mallory")] }];
    const { input } = await loader(source).load();
    const model = buildBoard(input);
    const row = model.sections.find((s) => s.id === "frontier")?.rows[0];
    assert.equal(row?.runColumn, "free");
    assert.match(row?.notes.join(" ") ?? "", /mallory, who has no write access/);
  });

  it("remembers an author's permission between refreshes", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("bob", "admin");
    source.issues = [{ number: 2, labels: ["in-progress"], comments: [comment(body(lease(2, { user: "bob" })), "bob")] }];
    const l = loader(source);
    await l.load();
    const second = await l.load();
    assert.deepEqual(source.calls.permission, ["bob"]);
    assert.equal(second.cost.permissionChecks, 0);
  });

  it("keeps malformed leases, other issues' leases and parser crashes out, with reasons", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("ana", "write");
    source.issues = [
      {
        number: 5,
        labels: ["ready-for-agent"],
        comments: [comment("<!-- test-lease -->\n{\"version\":1}"), comment(body(lease(6))), comment("legacy finished")],
      },
    ];
    const crashy: MarkerParser = (c, t) => (c.body.includes("crash") ? (() => { throw new Error("boom"); })() : parse(c, t));
    source.issues[0]?.comments?.push(comment("crash"));
    const l = new BoardLoader({ source, parse: crashy, readLocal: async () => [], host: HERE, labels, clock, log, lastComments: 10 });
    const { input } = await l.load();
    const issue = input.issues[0];
    assert.deepEqual(issue?.ignored.map((i) => i.reason), ["malformed lease", "names another issue", "parser error: boom"]);
    assert.equal(issue?.readings[0]?.kind, "finished-legacy");
  });

  it("notes an issue whose extra comments request failed instead of failing the board", async () => {
    const source = new FakeBoardSource();
    source.issues = [{ number: 7, labels: ["in-progress"], assignees: ["bob"], comments: chatter(8) }];
    source.failComments.add(7);
    const { input } = await loader(source).load();
    const row = buildBoard(input).sections.find((s) => s.id === "claimed-elsewhere")?.rows[0];
    assert.match(row?.notes.join(" ") ?? "", /Lease not read: comments of #7: 502/);
  });

  it("passes local claims and the viewer through", async () => {
    const source = new FakeBoardSource();
    source.viewer = "cy";
    source.issues = [{ number: 8, labels: ["ready-for-agent"] }];
    const { input } = await new BoardLoader({ source, parse, readLocal: async () => [], host: HERE, labels, clock, log }).load();
    assert.equal(input.viewer, "cy");
    assert.equal(input.now.toISOString(), NOW.toISOString());
    assert.equal(minutes(0), NOW.toISOString());
  });
});
