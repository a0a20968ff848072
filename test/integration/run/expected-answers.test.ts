/**
 * GitHub answers a caller expects (a 422 for a label that exists, a 404 for a missing issue) and a
 * network error the caller turns into its own message are not printed as `error:` lines: Octokit's
 * per-request log line is debug (src/adapters/github/client.ts). The real CLI against the sandbox.
 */
import { strict as assert } from "node:assert";
import { createOctokit } from "../../../src/adapters/github/client";
import { CollectLog } from "../claims/claims-sandbox";
import { RunWorld } from "./run-helpers";

const say = (r: { out: string[]; err: string[] }) => `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;
const errorLines = (lines: string[]) => lines.filter((l) => /^error:/.test(l) || / - \d{3} with id /.test(l));

describe("expected GitHub answers are not printed as errors (integration)", function () {
  this.timeout(120_000);
  let w: RunWorld;
  before(async () => {
    w = await RunWorld.make();
  });
  after(async () => w?.dispose());

  it("init run a second time (its labels answer 422) prints no error line", async () => {
    const first = await w.cliDone(["init"]);
    assert.equal(first.code, 0, say(first));
    const second = await w.cliDone(["init"]);
    assert.equal(second.code, 0, say(second));
    assert.equal(second.out.at(-1), "Nothing to do: this Target is already set up.");
    assert.deepEqual(errorLines(second.err), [], say(second));
  });

  it("run of a ticket that does not exist (404) says so in its own words, with no `error: GET … 404` line", async () => {
    const r = await w.cliDone(["run", "99"]);
    assert.equal(r.code, 2, say(r));
    assert.deepEqual(errorLines(r.err), [], say(r));
    assert.match(r.out.join("\n"), /#99 +skipped +no such issue/, say(r));
  });

  it("board against an API that does not answer fails with its own message, not Octokit's `500 with id UNKNOWN`", async () => {
    const r = await w.cliDone(["board", "--api-url", "http://127.0.0.1:1"]);
    assert.equal(r.code, 1, say(r));
    assert.deepEqual(errorLines(r.err), [], say(r));
    assert.match(r.err.join("\n"), /could not read demo\/shop: .*could not reach the API/, say(r));
    // Said once: the final line, and no `warn: board fetch failed` line before it.
    assert.deepEqual(
      r.err.filter((l) => /could not reach the API/.test(l)),
      [r.err.at(-1)],
      say(r),
    );
    assert.deepEqual(
      r.err.filter((l) => /^warn:/.test(l)),
      [],
      say(r),
    );
  });

  it("a failed board fetch keeps its details at debug (TICKET_RUNNER_LOG=debug), the final line still last", async () => {
    const r = await w.cliDone(["board", "--api-url", "http://127.0.0.1:1"], { host: w.hostEnv("debugging", { TICKET_RUNNER_LOG: "debug" }) });
    assert.equal(r.code, 1, say(r));
    assert.ok(
      r.err.some((l) => /^debug: board fetch failed: .*could not reach the API.*"reason":"network"/.test(l)),
      say(r),
    );
    assert.match(r.err.at(-1) ?? "", /^ticket-runner board: could not read demo\/shop: /, say(r));
  });

  it("the shared client logs Octokit's line for a 404 at debug, and a 200 at debug too", async () => {
    const log = new CollectLog();
    const octokit = createOctokit({ apiUrl: w.sandbox.apiUrl, token: w.target.userToken, log, retryBaseMs: 10 });
    await octokit.request("GET /repos/{owner}/{repo}", { owner: w.target.owner, repo: w.target.repo });
    await assert.rejects(octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}", { owner: w.target.owner, repo: w.target.repo, issue_number: 99 }), {
      status: 404,
    });
    const requestLines = log.lines.filter((l) => / - \d{3} with id /.test(l));
    assert.equal(requestLines.length, 2, log.lines.join("\n"));
    for (const line of requestLines) assert.match(line, /^debug GET /, line);
    assert.ok(
      requestLines.some((l) => / - 404 with id /.test(l)),
      log.lines.join("\n"),
    );
  });
});
