/**
 * Secrets the agent read, published: a hand-off keeps the Stages' transcripts on the State branch,
 * which anyone who can clone the Target reads, and the PR body and comments carry the agent's own
 * words. An AWS key the agent read (a Read tool result, as a `cat` would be) and wrote into its
 * summary must be in none of them; the kept transcript says what was masked. Real CLI, real
 * sandbox, an anonymous fetch of the State records. ADR 0160.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { demoTicketBody } from "../../support/run-seed";
import { RunWorld } from "../../integration/run/run-helpers";
import { record } from "../support/figures";

const run = promisify(execFile);

// A key of AWS's shapes that is nobody's (not AWS's documentation example, which scanners skip).
const KEY_ID = "AKIA2E0A8F3B244C9986";
const SECRET = "Xq8Vb3kPz7Lm2Rt9Yw4Nc6Hj1Gd5Fs0Ae7Ui3Op2";

describe("reliability: secrets the agent read are not published", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("an AWS key the agent read is in no kept transcript, State file, comment or PR body; the transcript says what was masked", async () => {
    w = await RunWorld.make();
    const ticket = {
      title: "Add the region setting",
      criteria: [["`config/aws.env` names the region", "config/aws.env", "region = eu-west-1"]] as [string, string, string][],
      files: { "config/aws.env": `aws_access_key_id = ${KEY_ID}\naws_secret_access_key = ${SECRET}\n` },
      behaviours: ["unmet-criteria"],
    };
    const body = demoTicketBody(ticket).replace('"files"', `"summary": "Read the keys: ${KEY_ID} and aws_secret_access_key = ${SECRET}",\n  "files"`);
    const { data: issue } = await w.octokit.rest.issues.create({
      owner: w.target.owner,
      repo: w.target.repo,
      title: ticket.title,
      body,
      labels: ["ready-for-agent"],
    });
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 1, r.err.join("\n"));
    assert.deepEqual((await w.issue(issue.number)).labelNames, ["ready-for-human"]);

    // Anyone may fetch a public Target's State records: no token at all.
    const anon = join(w.scratch, "anonymous-state");
    const git = async (...args: string[]) =>
      (await run("git", ["-C", anon, ...args], { env: { ...process.env, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 64 << 20 })).stdout;
    await run("git", ["init", "-q", anon]);
    await git("fetch", "-q", w.sandbox.gitUrl(w.target.owner, w.target.repo), "+refs/ticket-runner/state/*:refs/state/*");
    const files: { name: string; text: string }[] = [];
    for (const ref of (await git("for-each-ref", "--format=%(refname)", "refs/state")).split("\n").filter(Boolean)) {
      for (const line of (await git("ls-tree", "-r", ref)).split("\n").filter(Boolean)) {
        const [meta, name] = line.split("\t") as [string, string];
        files.push({ name, text: await git("cat-file", "blob", meta.split(" ")[2]!) });
      }
    }
    const transcripts = files.filter((f) => f.name.endsWith(".transcript.jsonl"));
    assert.ok(transcripts.length >= 2, `kept: ${files.map((f) => f.name).join(", ")}`);
    const published = [
      ...files.map((f) => ({ where: f.name, text: f.text })),
      ...(await w.comments(issue.number)).map((c) => ({ where: `comment ${c.id}`, text: c.body })),
      ...(await w.pulls()).map((p) => ({ where: `PR #${p.number}`, text: `${p.title}\n${p.body ?? ""}` })),
    ];
    for (const p of published) {
      assert.ok(!p.text.includes(KEY_ID) && !p.text.includes(SECRET), `the key is readable in ${p.where}`);
    }
    const verify = transcripts.find((f) => f.name.endsWith("/verify.transcript.jsonl"))!.text;
    const note = verify.trimEnd().split("\n").pop()!;
    assert.match(note, /"type":"ticket_runner_redaction"/);
    for (const kind of ["AWSAccessKeyID", "AWSSecretAccessKey"]) assert.ok(note.includes(`"kind":"${kind}"`), note);
    assert.match(verify, /\[redacted: AWSAccessKeyID\]/);
    record("secrets.published", {
      what: "a key the agent read is in no kept transcript, State file, comment or PR body",
      test: "test/reliability/quick/published-secrets.test.ts",
      inputs: published.length,
      losses: 0,
    });
  });
});
