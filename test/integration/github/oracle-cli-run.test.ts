/**
 * GitHub's descriptions as the oracle for what a real `ticket-runner run` sends: the CLI runs as
 * its own process, with its own client and no hook of ours, through a recording proxy in front of
 * the sandbox's API (test/support/oracle-record.ts). Every GraphQL document it sent is validated
 * against GitHub's schema with its variables, and every REST answer it got against the operation's
 * response schema in GitHub's OpenAPI description. The tickets cover a merge, a hand-off (a draft
 * pull request, the hand-off comment) and a release on a rate limit.
 */
import { strict as assert } from "node:assert";
import { graphqlProblems, restProblems, routesInSource, startRecordingProxy, type RecordingProxy } from "../../support/oracle-record";
import { RunWorld } from "../run/run-helpers";

describe("GitHub's descriptions as the oracle: what `ticket-runner run` sends, as a separate process", function () {
  this.timeout(240_000);
  let w: RunWorld;
  let proxy: RecordingProxy;
  let said = "";

  before(async () => {
    w = await RunWorld.make();
    proxy = await startRecordingProxy(w.sandbox.apiUrl);
    await w.tickets([w.ticket("merges"), w.ticket("handed off", ["unmet-criteria"]), w.ticket("limited", ["rate-limit-once"])]);
    const host = w.hostEnv("oracle", { TICKET_RUNNER_API_URL: proxy.url });
    const r = await w.cliDone(["run"], { host, timeoutMs: 200_000 });
    said = `exit ${r.code}\nstdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;
  });
  after(async () => {
    await proxy?.stop();
    await w?.dispose();
  });

  it("the Run went through the proxy: a merge, a hand-off and a release", () => {
    assert.match(said, /#1\s+merged/);
    assert.match(said, /#2\s+handed off/);
    assert.match(said, /#3\s+released/);
    const routes = new Set(proxy.seen.rest.map((r) => r.route));
    for (const route of [
      "POST /repos/{owner}/{repo}/pulls",
      "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge",
      "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    ]) {
      assert.ok(routes.has(route), `${route} was not seen:\n${[...routes].join("\n")}\n${said}`);
    }
    assert.ok(proxy.seen.graphql.length >= 5, `GraphQL documents seen: ${proxy.seen.graphql.length}`);
    console.log(
      `      one ticket-runner run (3 tickets): ${proxy.seen.graphql.length} GraphQL documents, ${proxy.seen.rest.length} REST answers on ${routes.size} routes, all checked`,
    );
  });

  it("every GraphQL document the Run sent is valid on GitHub's schema, with its variables", () => {
    assert.deepEqual(graphqlProblems(proxy.seen), []);
  });

  it("every REST answer the Run got matches the operation's documented status and response schema", () => {
    assert.deepEqual(restProblems(proxy.seen), []);
  });

  it("every REST route the Run used is one the in-process oracle exercises (a route the adapters name)", () => {
    const unnamed = [...new Set(proxy.seen.rest.map((r) => r.route))].filter((r) => !routesInSource().has(r));
    assert.deepEqual(unnamed, []);
  });
});
