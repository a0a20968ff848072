/**
 * A GitHub Enterprise Server without issue dependencies rejects any query naming `Issue.blockedBy`.
 * The sandbox plays one (fault `issueDependencies: false`); the board must still load, pay one
 * extra request once per client, and show nothing as blocked.
 */
import { strict as assert } from "node:assert";
import { rmSync } from "node:fs";
import type { Octokit } from "@octokit/rest";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { BOARD_PAGE_QUERY } from "../../../src/adapters/github/board-query";
import { createGitHubBoard, type GitHubBoard } from "../../../src/adapters/github/board-wiring";
import { NodeClock } from "../../../src/adapters/node-clock";
import { NodeHost } from "../../../src/adapters/node-host";
import type { Log } from "../../../src/ports/log";
import { startSandbox, type SandboxHandle } from "../../../src/sandbox/start";
import { sandboxOctokit, seedBoard, type SeededBoard } from "../../support/board-seed";

const labels = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" };

describe("board on a server without issue dependencies", function () {
  this.timeout(60_000);
  let sandbox: SandboxHandle;
  let seeded: SeededBoard;
  let blocked = 0;
  const warnings: string[] = [];
  const log: Log = { debug: () => undefined, info: () => undefined, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
  const host = new NodeHost({ env: { ...process.env, TICKET_RUNNER_HOST_NAME: "desk" } });

  function board(octokit: Octokit): GitHubBoard {
    return createGitHubBoard({ octokit, repo: seeded.repo, host, runRoot: new FsRunRoot(seeded.runRoot), labels, clock: new NodeClock(), log });
  }

  async function graphqlRequests(): Promise<number> {
    return (await sandbox.admin.requestLog()).filter((r) => r.user === "ana" && r.path === "/graphql").length;
  }

  before(async () => {
    sandbox = await startSandbox({ quiet: true });
    seeded = await seedBoard(sandbox, host.identity());
    const ana = sandboxOctokit(sandbox.apiUrl, seeded.tokens.ana);
    const where = { owner: seeded.repo.owner, repo: seeded.repo.repo };
    const blocker = (await ana.rest.issues.create({ ...where, title: "Migrate the schema first" })).data;
    blocked = (await ana.rest.issues.create({ ...where, title: "Use the new schema", labels: ["ready-for-agent"] })).data.number;
    await ana.request("POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", { ...where, issue_number: blocked, issue_id: blocker.id });
  });
  afterEach(async () => {
    await sandbox.admin.setFaults({});
  });
  after(async () => {
    await sandbox?.stop();
    if (seeded) rmSync(seeded.runRoot, { recursive: true, force: true });
  });

  it("the sandbox rejects blockedBy the way GitHub does: code undefinedField, the field's path", async () => {
    await sandbox.admin.setFaults({ issueDependencies: false });
    const ana = sandboxOctokit(sandbox.apiUrl, seeded.tokens.ana);
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
    await sandbox.admin.clearRequestLog();
    const withField = board(sandboxOctokit(sandbox.apiUrl, seeded.tokens.ana));
    assert.equal(await withField.refresher.refresh(), "refetched");
    const normal = await graphqlRequests();
    assert.ok(withField.refresher.view().model?.sections.some((s) => s.id === "blocked" && s.count === 1), "the blocked issue shows while the server has dependencies");

    await sandbox.admin.setFaults({ issueDependencies: false });
    warnings.length = 0;
    const octokit = sandboxOctokit(sandbox.apiUrl, seeded.tokens.ana);
    const b = board(octokit);
    await sandbox.admin.clearRequestLog();
    assert.equal(await b.refresher.refresh(), "refetched");
    assert.equal(await graphqlRequests(), normal + 1, "the refused page, then the page without blockedBy");
    const model = b.refresher.view().model;
    assert.equal(b.refresher.view().error, null);
    assert.deepEqual(model?.sections.map((s) => s.id), ["running-here", "claimed-elsewhere", "stale", "frontier", "needs-person", "stranded"]);
    const row = model?.sections.flatMap((s) => s.rows).find((r) => r.number === blocked);
    assert.deepEqual([row?.section, row?.runColumn], ["frontier", "free"]);
    assert.ok(model?.sections.every((s) => s.rows.every((r) => r.marker !== "blocked")), "no issue is shown blocked");

    await sandbox.admin.clearRequestLog();
    assert.equal(await b.refresher.refresh(), "refetched");
    assert.equal(await graphqlRequests(), normal, "remembered: no refused query again");
    await sandbox.admin.clearRequestLog();
    assert.equal(await board(octokit).refresher.refresh(), "refetched");
    assert.equal(await graphqlRequests(), normal, "remembered for the client, not only this board");

    const said = warnings.filter((w) => /no issue dependencies/.test(w));
    assert.equal(said.length, 1, `one warning, got: ${warnings.join(" | ")}`);
    assert.ok(said[0]?.includes(sandbox.apiUrl) && /blocked issues are not shown/.test(said[0]), said[0]);
  });
});
