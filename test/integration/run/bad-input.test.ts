import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import { RunWorld } from "./run-helpers";
import { cloneWithToken } from "../../support/run-seed";

const say = (r: { out: string[]; err: string[] }) => `stdout:\n${r.out.join("\n")}\nstderr:\n${r.err.join("\n")}`;

describe("run (integration): bad input", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("a Check that hangs is killed at its timeout, its partial output kept as the evidence", async () => {
    w = await RunWorld.make({
      checks: [["node", "-e", "console.log('partial output before the hang'); setInterval(() => {}, 1000)"]],
      checkTimeoutMinutes: 0.02,
    });
    const [n] = await w.tickets([w.ticket("stall")]);
    const r = await w.cliDone(["run"]);
    assert.equal(r.code, 1, say(r));
    const handoff = (await w.comments(n!)).find((c) => c.body.startsWith(HANDOFF_MARKER))!;
    assert.match(handoff.body, /Failed at \*\*checks\*\*, after the fix budget was used/);
    assert.match(handoff.body, /did not finish within 1\.2 s and was stopped/);
    assert.match(handoff.body, /partial output before the hang/);
    await w.noProcessesIn(join(w.target.clone, ".worktrees"));
  });
});

describe("init (integration)", function () {
  this.timeout(120_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("creates the labels, ticket-runner.json and the .gitignore lines, and does nothing the second time", async () => {
    w = await RunWorld.make();
    await w.sandbox.admin.createRepo({
      owner: "demo",
      name: "fresh",
      files: { "package.json": JSON.stringify({ scripts: { test: "node --test" } }), "README.md": "hi\n" },
    });
    const { token } = await w.sandbox.admin.addUser({ login: "olu", repos: { "demo/fresh": "write" } });
    const clone = join(w.scratch, "fresh");
    await cloneWithToken(w.sandbox.gitUrl("demo", "fresh"), token, clone);
    const host = w.hostEnv("init", { TICKET_RUNNER_TOKEN: token });

    const refused = await w.cliDone(["run"], { cwd: clone, host });
    assert.equal(refused.code, 2);
    assert.match(refused.err.join("\n"), /has no ticket-runner\.json, so Ticket Runner has not been set up/);

    const first = await w.cliDone(["init"], { cwd: clone, host });
    assert.equal(first.code, 0, say(first));
    assert.match(first.out.join("\n"), /ticket-runner\.json: created, with the Checks `npm test`/);
    assert.match(first.out.join("\n"), /Labels: created ready-for-agent, in-progress, ready-for-human\./);
    assert.ok(existsSync(join(clone, "ticket-runner.json")));
    assert.match(readFileSync(join(clone, ".gitignore"), "utf8"), /^\.worktrees\/\n\.ticket-runner\/\n$/);

    const second = await w.cliDone(["init"], { cwd: clone, host });
    assert.equal(second.code, 0);
    assert.equal(second.out.at(-1), "Nothing to do: this Target is already set up.");
  });
});

describe("run (integration): an agent whose stream is broken", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("garbage and a line over 10 MB each fail the Stage with a clear kind, and the Run goes on", async () => {
    const { writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const script = join(tmpdir(), `tr-broken-agent-${process.pid}.js`);
    // Ticket 1 prints garbage; ticket 2 prints one line of 11 MB.
    writeFileSync(
      script,
      `const t = process.env.TICKET_RUNNER_TICKET;\nif (t === "1") { process.stdout.write("this is not stream-json\\n{\\"half\\": "); }\nelse { process.stdout.write("x".repeat(11 * 1024 * 1024) + "\\n"); }\n`,
    );
    try {
      w = await RunWorld.make({ agent: { kind: "command", command: ["node", script], stageTimeoutMinutes: 2 } });
      const [a, b] = await w.tickets([w.ticket("garbage"), w.ticket("huge")]);
      const r = await w.cliDone(["run"]);
      assert.equal(r.code, 1, say(r));
      const text = r.out.join("\n");
      assert.match(text, new RegExp(`#${a} handed-off: at implement: the implement Stage gave an invalid result`));
      assert.match(text, new RegExp(`#${b} handed-off: at implement: the implement Stage gave an invalid result`));
      assert.match(text, /Done: 0 merged, 2 handed off\./);
    } finally {
      const { rmSync } = await import("node:fs");
      rmSync(script, { force: true });
    }
  });
});
