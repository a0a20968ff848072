/**
 * The board over real HTTP: the sandbox, the real Octokit client, real lease comments written by
 * real sandbox users, a real run root. Counts requests in the sandbox's own request log.
 */
import { strict as assert } from "node:assert";
import { useSeededBoard } from "../../support/seeded-board";
import type { GitHubBoard } from "../../../src/adapters/github/board-wiring";
import type { BoardModel, BoardRow } from "../../../src/core/board/types";
import type { Log } from "../../../src/ports/log";
import { sandboxOctokit } from "../../support/board-seed";

const warnings: string[] = [];
const log: Log = { debug: () => undefined, info: () => undefined, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };

function row(model: BoardModel | null, n: number): BoardRow {
  for (const s of model?.sections ?? []) for (const r of s.rows) if (r.number === n) return r;
  assert.fail(`no row for #${n}`);
}

describe("board over the sandbox", function () {
  this.timeout(60_000);
  const fx = useSeededBoard(log);
  const board = (lastComments = 10): GitHubBoard => fx.board({ lastComments });

  it("shows each state in its section, with counts, Run column and lease links", async () => {
    const b = board();
    assert.equal(await b.refresher.tick(), "refetched");
    const model = b.refresher.view().model;
    assert.deepEqual(
      model?.sections.map((s) => [s.title, s.count]),
      [
        ["Running here", 1],
        ["Claimed elsewhere", 2],
        ["Stale", 1],
        ["Frontier (ready)", 3],
        ["Blocked", 0],
        ["Needs a person", 1],
        ["Stranded", 1],
      ],
    );
    const t = fx.seeded.tickets;
    assert.equal(row(model, t.runningHere).runColumn, "● desk · implement · 12m");
    assert.equal(row(model, t.runningHere).spinning, true);
    assert.equal(row(model, t.claimedElsewhere).runColumn, "◌ laptop-2 · expires in 31m");
    assert.equal(row(model, t.stale).runColumn, "⚠ stale 2h · laptop-2");
    assert.equal(row(model, t.person).runColumn, "person · cy");
    assert.equal(row(model, t.stranded).runColumn, "stranded · desk · verify");
    assert.match(row(model, t.finished).runColumn, /^finished <1m ago · laptop-2$/);
    assert.match(row(model, t.needsPerson).runColumn, /^handed off <1m ago · desk$/);
    assert.equal(row(model, t.claimedElsewhere).leaseUrl, fx.seeded.leaseUrls[t.claimedElsewhere]);
    assert.equal(row(model, t.frontier).issueUrl, `${fx.sandbox.apiUrl}/acme/shop/issues/${t.frontier}`);
  });

  it("ignores the lease an untrusted commenter wrote, and says why", async () => {
    const b = board();
    await b.refresher.tick();
    const untrusted = row(b.refresher.view().model, fx.seeded.tickets.untrusted);
    assert.equal(untrusted.section, "frontier");
    assert.equal(untrusted.runColumn, "free");
    assert.match(untrusted.notes.join(" "), /mallory, who has no write access/);
  });

  it("costs one GraphQL request per 100 tickets, plus one per new lease author", async () => {
    const b = board();
    await fx.sandbox.admin.clearRequestLog();
    await b.refresher.refresh();
    const requests = (await fx.sandbox.admin.requestLog()).filter((r) => r.user === "ana");
    const graphql = requests.filter((r) => r.path === "/graphql");
    const permission = requests.filter((r) => r.path.includes("/permission"));
    assert.equal(graphql.length, 1, "nine tickets fit one page");
    assert.equal(permission.length, 4, "ana, bob, cy, mallory each checked once");
    assert.equal(requests.length, 5);
    assert.deepEqual(b.refresher.lastCost && [b.refresher.lastCost.requests, b.refresher.lastCost.extraComments], [5, 0]);
    await fx.sandbox.admin.clearRequestLog();
    await b.refresher.refresh();
    assert.equal((await fx.sandbox.admin.requestLog()).filter((r) => r.user === "ana").length, 1, "permissions are remembered");
  });

  it("spends one extra request, on that issue only, when the lease is older than the last comments", async () => {
    const bob = sandboxOctokit(fx.sandbox.apiUrl, fx.seeded.tokens.bob);
    for (let i = 0; i < 3; i++)
      await bob.rest.issues.createComment({ owner: "acme", repo: "shop", issue_number: fx.seeded.tickets.claimedElsewhere, body: `progress ${i}` });
    const b = board(2);
    await b.refresher.refresh();
    await fx.sandbox.admin.clearRequestLog();
    await b.refresher.refresh();
    const graphql = (await fx.sandbox.admin.requestLog()).filter((r) => r.user === "ana" && r.path === "/graphql");
    assert.equal(graphql.length, 2, "the page, then the one issue's comments");
    assert.equal(b.refresher.lastCost?.extraComments, 1);
    assert.equal(row(b.refresher.view().model, fx.seeded.tickets.claimedElsewhere).section, "claimed-elsewhere");
  });

  it("polls for free while idle and refetches once something changes", async () => {
    const b = board();
    await b.refresher.tick();
    assert.equal(await b.refresher.tick(), "unchanged");
    const before = b.poller.lastRate?.used; // as a 304 reports it: the budget now
    await fx.sandbox.admin.clearRequestLog();
    for (let i = 0; i < 10; i++) assert.equal(await b.refresher.tick(), "unchanged");
    const polls = (await fx.sandbox.admin.requestLog()).filter((r) => r.user === "ana");
    assert.equal(polls.length, 20);
    assert.ok(
      polls.every((r) => r.status === 304),
      "every idle poll is a 304",
    );
    assert.equal(b.poller.lastRate?.used, before, "no rate-limit point spent");
    assert.equal(b.refresher.nextDelayMs(30), 60_000, "the sandbox's X-Poll-Interval: 60 wins over a 30 s setting");

    const admin = sandboxOctokit(fx.sandbox.apiUrl, fx.sandbox.adminToken);
    await admin.rest.issues.addLabels({ owner: "acme", repo: "shop", issue_number: fx.seeded.tickets.frontier, labels: ["in-progress"] });
    await admin.rest.issues.removeLabel({ owner: "acme", repo: "shop", issue_number: fx.seeded.tickets.frontier, name: "ready-for-agent" });
    assert.equal(await b.refresher.tick(), "refetched");
    assert.equal(row(b.refresher.view().model, fx.seeded.tickets.frontier).section, "claimed-elsewhere");
    await admin.rest.issues.addLabels({ owner: "acme", repo: "shop", issue_number: fx.seeded.tickets.frontier, labels: ["ready-for-agent"] });
    await admin.rest.issues.removeLabel({ owner: "acme", repo: "shop", issue_number: fx.seeded.tickets.frontier, name: "in-progress" });
  });

  it("sees a lease rewritten in place (a comment edit is not an issue event)", async () => {
    const b = board();
    await b.refresher.tick();
    assert.equal(await b.refresher.tick(), "unchanged");
    const bob = sandboxOctokit(fx.sandbox.apiUrl, fx.seeded.tokens.bob);
    const url = fx.seeded.leaseUrls[fx.seeded.tickets.claimedElsewhere] ?? "";
    const id = Number(/issuecomment-(\d+)/.exec(url)?.[1]);
    const { data } = await bob.rest.issues.getComment({ owner: "acme", repo: "shop", comment_id: id });
    await bob.rest.issues.updateComment({
      owner: "acme",
      repo: "shop",
      comment_id: id,
      body: (data.body ?? "").replace('"state": "claimed"', '"state": "released"'),
    });
    assert.equal(await b.refresher.tick(), "refetched");
    assert.match(row(b.refresher.view().model, fx.seeded.tickets.claimedElsewhere).notes.join(" "), /without a lease comment/);
    await bob.rest.issues.updateComment({ owner: "acme", repo: "shop", comment_id: id, body: data.body ?? "" });
  });

  it("keeps the board and shows the reason when GitHub fails, then recovers", async () => {
    const b = board();
    await b.refresher.tick();
    await fx.sandbox.admin.setFaults({ errorRate: 1, errorRoutes: "^POST /graphql", errorStatus: 502 });
    try {
      assert.equal(await b.refresher.refresh(), "failed");
      const view = b.refresher.view();
      assert.equal(view.error?.reason, "server");
      assert.match(view.error?.message ?? "", /502/);
      assert.equal(view.model?.total, 9, "the last good board stays");
    } finally {
      await fx.sandbox.admin.setFaults({});
    }
    assert.equal(await b.refresher.refresh(), "refetched");
    assert.equal(b.refresher.view().error, null);
  });

  it("keeps an issue blocked by an open issue off the Frontier, in the same one query, until the blocker closes", async () => {
    const ana = sandboxOctokit(fx.sandbox.apiUrl, fx.seeded.tokens.ana);
    const where = { owner: "acme", repo: "shop" };
    const blocker = (await ana.rest.issues.create({ ...where, title: "Migrate the schema first" })).data;
    const blocked = (await ana.rest.issues.create({ ...where, title: "Use the new schema", labels: ["ready-for-agent"] })).data;
    await ana.request("POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", {
      ...where,
      issue_number: blocked.number,
      issue_id: blocker.id,
    });
    try {
      const b = board();
      await b.refresher.tick();
      await fx.sandbox.admin.clearRequestLog();
      assert.equal(await b.refresher.refresh(), "refetched");
      const r = row(b.refresher.view().model, blocked.number);
      assert.deepEqual([r.section, r.runColumn, r.contextValue], ["blocked", `blocked by #${blocker.number}`, "ticketRunner:ticket"]);
      const requests = (await fx.sandbox.admin.requestLog()).filter((x) => x.user === "ana");
      assert.deepEqual(
        requests.map((x) => `${x.method} ${x.path}`),
        ["POST /graphql"],
        "no request per issue for its blockers",
      );
      await ana.rest.issues.update({ ...where, issue_number: blocker.number, state: "closed" });
      assert.equal(await b.refresher.refresh(), "refetched");
      assert.equal(row(b.refresher.view().model, blocked.number).section, "frontier", "a closed blocker frees it");
    } finally {
      await ana.rest.issues.update({ ...where, issue_number: blocked.number, state: "closed" });
      await ana.rest.issues.update({ ...where, issue_number: blocker.number, state: "closed" });
    }
  });

  it("names a bad token and a missing repository", async () => {
    const bad = fx.board({ octokit: sandboxOctokit(fx.sandbox.apiUrl, "trsb_not_a_real_token_000000") });
    assert.equal(await bad.refresher.refresh(), "failed");
    assert.equal(bad.refresher.view().error?.reason, "unauthorized");
    const missing = fx.board({ repo: { owner: "acme", repo: "nope" } });
    assert.equal(await missing.refresher.refresh(), "failed");
    assert.equal(missing.refresher.view().error?.reason, "not-found");
  });
});
