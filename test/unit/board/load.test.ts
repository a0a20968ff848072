import { strict as assert } from "node:assert";
import { BoardLoader } from "../../../src/core/board/load";
import { buildBoard } from "../../../src/core/board/build";
import { renderLeaseComment } from "../../../src/core/claims/lease-comment";
import type { Clock } from "../../../src/ports/clock";
import type { Log } from "../../../src/ports/log";
import { FakeBoardSource, comment } from "../../fakes/fake-board-source";
import { HERE, LAPTOP, NOW, lease } from "./board-fixtures";

const clock: Clock = { now: () => NOW, sleep: async () => undefined };
const logged: string[] = [];
const log: Log = { debug: () => undefined, info: (m) => void logged.push(m), warn: (m) => void logged.push(m), error: (m) => void logged.push(m) };
const labels = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" };

function loader(source: FakeBoardSource, lastComments = 3): BoardLoader {
  return new BoardLoader({ source, readLocal: async () => [], host: HERE, labels, clock, log, lastComments });
}
const chatter = (n: number): ReturnType<typeof comment>[] => Array.from({ length: n }, (_, i) => comment(`chat ${i}`, "zed"));

describe("board loader", () => {
  it("reads a lease among the last comments with no extra request", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("bob", "write");
    source.issues = [
      { number: 2, labels: ["in-progress"], assignees: ["bob"], comments: [comment(renderLeaseComment(lease(2, { host: LAPTOP, user: "bob" })), "bob")] },
    ];
    const { input, cost } = await loader(source).load();
    assert.equal(input.issues[0]?.readings.length, 1);
    assert.deepEqual([cost.requests, cost.extraComments, cost.permissionChecks], [2, 0, 1]);
  });

  it("spends one more request only on a claimed issue whose lease is older than the last comments", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("bob", "write");
    const old = comment(renderLeaseComment(lease(2, { host: LAPTOP, user: "bob" })), "bob");
    source.issues = [
      { number: 2, labels: ["in-progress"], assignees: ["bob"], comments: [old, ...chatter(5)] },
      { number: 3, labels: ["ready-for-agent"], comments: chatter(50) },
    ];
    const { input, cost } = await loader(source).load();
    assert.deepEqual(source.calls.allComments, [2]);
    assert.equal(cost.extraComments, 1);
    assert.equal(buildBoard(input).sections.find((s) => s.id === "claimed-elsewhere")?.rows[0]?.runColumn, "◌ laptop-2 · expires in 25m");
  });

  it("ignores a lease from an author without write access, and says so", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("mallory", "read");
    source.issues = [
      { number: 4, labels: ["ready-for-agent"], comments: [comment(renderLeaseComment(lease(4, { user: "mallory", host: LAPTOP })), "mallory")] },
    ];
    const { input } = await loader(source).load();
    const row = buildBoard(input).sections.find((s) => s.id === "frontier")?.rows[0];
    assert.equal(row?.runColumn, "free");
    assert.match(row?.notes.join(" ") ?? "", /mallory, who has no write access/);
  });

  it("remembers an author's permission between refreshes", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("bob", "admin");
    source.issues = [{ number: 2, labels: ["in-progress"], comments: [comment(renderLeaseComment(lease(2, { user: "bob" })), "bob")] }];
    const l = loader(source);
    await l.load();
    const second = await l.load();
    assert.deepEqual(source.calls.permission, ["bob"]);
    assert.equal(second.cost.permissionChecks, 0);
  });

  it("ignores malformed leases and leases naming another issue, with reasons, and logs each once", async () => {
    const source = new FakeBoardSource();
    source.permissions.set("ana", "write");
    const truncated = renderLeaseComment(lease(5)).slice(0, 150);
    source.issues = [{ number: 5, labels: ["ready-for-agent"], comments: [comment(truncated), comment(renderLeaseComment(lease(6)))] }];
    logged.length = 0;
    const l = loader(source, 10);
    const { input } = await l.load();
    await l.load();
    const reasons = input.issues[0]?.ignored.map((i) => i.reason) ?? [];
    assert.equal(reasons.length, 2);
    assert.match(reasons[0] ?? "", /JSON missing or truncated/);
    assert.match(reasons[1] ?? "", /marker names acme\/shop#6/);
    assert.equal(logged.filter((m) => m.includes("ignored a lease comment")).length, 2, "two comments, logged once each over two refreshes");
  });

  it("notes an issue whose extra comments request failed instead of failing the board", async () => {
    const source = new FakeBoardSource();
    source.issues = [{ number: 7, labels: ["in-progress"], assignees: ["bob"], comments: chatter(8) }];
    source.failComments.add(7);
    const { input } = await loader(source).load();
    const row = buildBoard(input).sections.find((s) => s.id === "claimed-elsewhere")?.rows[0];
    assert.match(row?.notes.join(" ") ?? "", /Lease not read: comments of #7: 502/);
  });

  it("passes local claims, the viewer and the time through", async () => {
    const source = new FakeBoardSource();
    source.viewer = "cy";
    source.issues = [{ number: 8, labels: ["ready-for-agent"] }];
    const { input } = await new BoardLoader({ source, readLocal: async () => [], host: HERE, labels, clock, log }).load();
    assert.deepEqual([input.viewer, input.now.toISOString(), input.issues.length], ["cy", NOW.toISOString(), 1]);
  });
});
