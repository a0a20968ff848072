/**
 * A GitHub Enterprise Server without issue dependencies rejects any query naming `Issue.blockedBy`.
 * The sandbox plays one (fault `issueDependencies: false`); the board must still load, pay one
 * extra request once per client, and show nothing as blocked.
 */
import { strict as assert } from "node:assert";
import type { Octokit } from "@octokit/rest";
import { BOARD_PAGE_QUERY } from "../../../src/adapters/github/board-query";
import type { GitHubBoard } from "../../../src/adapters/github/board-wiring";
import type { Log } from "../../../src/ports/log";
import { sandboxOctokit } from "../../support/board-seed";
import { useSeededBoard } from "../../support/seeded-board";

describe("board on a server without issue dependencies", function () {
  this.timeout(60_000);
  let blocked = 0;
  const warnings: string[] = [];
  const log: Log = { debug: () => undefined, info: () => undefined, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
  const fx = useSeededBoard(log);
  const board = (octokit: Octokit): GitHubBoard => fx.board({ octokit });

  async function graphqlRequests(): Promise<number> {
    return (await fx.sandbox.admin.requestLog()).filter((r) => r.user === "ana" && r.path === "/graphql").length;
  }

  before(async () => {
    const ana = sandboxOctokit(fx.sandbox.apiUrl, fx.seeded.tokens.ana);
    const where = { owner: fx.seeded.repo.owner, repo: fx.seeded.repo.repo };
    const blocker = (await ana.rest.issues.create({ ...where, title: "Migrate the schema first" })).data;
    blocked = (await ana.rest.issues.create({ ...where, title: "Use the new schema", labels: ["ready-for-agent"] })).data.number;
    await ana.request("POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", { ...where, issue_number: blocked, issue_id: blocker.id });
  });
  afterEach(async () => {
    await fx.sandbox.admin.setFaults({});
  });

  it("the sandbox rejects blockedBy the way GitHub does: code undefinedField, the field's path", async () => {
    await fx.sandbox.admin.setFaults({ issueDependencies: false });
    const ana = sandboxOctokit(fx.sandbox.apiUrl, fx.seeded.tokens.ana);
    const error = await ana.graphql(BOARD_PAGE_QUERY, { owner: "acme", name: "shop", labels: ["ready-for-agent"], after: null, comments: 1 }).then(
      () => assert.fail("the query should be refused"),
      (e: unknown) => e as { errors?: { extensions?: Record<string, unknown>; path?: string[]; message?: string }[] },
    );
    assert.equal(error.errors?.length, 1);
    assert.deepEqual(error.errors?.[0]?.extensions, { code: "undefinedField", typeName: "Issue", fieldName: "blockedBy" });
    assert.deepEqual(error.errors?.[0]?.path, ["query BoardPage", "repository", "issues", "nodes", "blockedBy"]);
    assert.equal(error.errors?.[0]?.message, "Field 'blockedBy' doesn't exist on type 'Issue'");
  });

  it("loads with one extra request on the first refresh, none afterwards, and nothing blocked", async () => {
    // The same board with the field on, for the request count to compare with.
    await fx.sandbox.admin.clearRequestLog();
    const withField = board(sandboxOctokit(fx.sandbox.apiUrl, fx.seeded.tokens.ana));
    assert.equal(await withField.refresher.refresh(), "refetched");
    const normal = await graphqlRequests();
    assert.ok(
      withField.refresher.view().model?.sections.some((s) => s.id === "blocked" && s.count === 1),
      "the blocked issue shows while the server has dependencies",
    );

    await fx.sandbox.admin.setFaults({ issueDependencies: false });
    warnings.length = 0;
    const octokit = sandboxOctokit(fx.sandbox.apiUrl, fx.seeded.tokens.ana);
    const b = board(octokit);
    await fx.sandbox.admin.clearRequestLog();
    assert.equal(await b.refresher.refresh(), "refetched");
    assert.equal(await graphqlRequests(), normal + 1, "the refused page, then the page without blockedBy");
    const model = b.refresher.view().model;
    assert.equal(b.refresher.view().error, null);
    assert.deepEqual(
      model?.sections.map((s) => s.id),
      ["running-here", "claimed-elsewhere", "stale", "frontier", "needs-person", "stranded"],
    );
    const row = model?.sections.flatMap((s) => s.rows).find((r) => r.number === blocked);
    assert.deepEqual([row?.section, row?.runColumn], ["frontier", "free"]);
    assert.ok(
      model?.sections.every((s) => s.rows.every((r) => r.marker !== "blocked")),
      "no issue is shown blocked",
    );

    await fx.sandbox.admin.clearRequestLog();
    assert.equal(await b.refresher.refresh(), "refetched");
    assert.equal(await graphqlRequests(), normal, "remembered: no refused query again");
    await fx.sandbox.admin.clearRequestLog();
    assert.equal(await board(octokit).refresher.refresh(), "refetched");
    assert.equal(await graphqlRequests(), normal, "remembered for the client, not only this board");

    const said = warnings.filter((w) => /no issue dependencies/.test(w));
    assert.equal(said.length, 1, `one warning, got: ${warnings.join(" | ")}`);
    assert.ok(said[0]?.includes(fx.sandbox.apiUrl) && /blocked issues are not shown/.test(said[0]), said[0]);
  });
});
