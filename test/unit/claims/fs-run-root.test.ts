import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { defaultRunRoot, runDirFor } from "../../../src/core/claims/run-root-path";
import { Refusal } from "../../../src/core/errors";
import type { RunJson } from "../../../src/core/schemas/run-json";
import { runJsonFixture } from "../../support/run-json";

const REPO = { owner: "acme", repo: "widgets" };

function run(session: string, issue = 7): RunJson {
  return runJsonFixture({ session, issue });
}

describe("claims: the fs run root", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "tr-runroot-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("puts run directories under <root>/<owner>__<repo>/issue-<n>, root from TICKET_RUNNER_RUN_ROOT or ~/.ticket-runner/runs", () => {
    assert.equal(runDirFor("/r", REPO, 12), "/r/acme__widgets/issue-12");
    assert.equal(defaultRunRoot({}, "/home/u"), "/home/u/.ticket-runner/runs");
    assert.equal(defaultRunRoot({ TICKET_RUNNER_RUN_ROOT: "/tmp/x" }, "/home/u"), "/tmp/x");
  });

  it("makes the run root and every run directory 0700, and narrows a run root an older version made 0755", async () => {
    // Fails on the code before this test: 0755 from the umask.
    const fresh = new FsRunRoot(join(dir, "runs"));
    const d = fresh.dirFor(REPO, 7);
    assert.equal((await fresh.create(d, run("a"))).kind, "created");
    for (const p of [fresh.root, join(fresh.root, "acme__widgets"), d]) assert.equal(statSync(p).mode & 0o777, 0o700, p);
    const old = join(dir, "old");
    mkdirSync(old, { mode: 0o755 });
    const again = new FsRunRoot(old);
    await again.create(again.dirFor(REPO, 8), run("b"));
    assert.equal(statSync(old).mode & 0o777, 0o700);
  });

  it("refuses a symbolic link anywhere in a run directory's path or as its run.json, and writes nothing where it points", async () => {
    // Fails on the code before this test: run.json was written through the link, into `elsewhere`.
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    const root = new FsRunRoot(join(dir, "runs"));
    mkdirSync(root.root, { mode: 0o700 });
    symlinkSync(elsewhere, join(root.root, "acme__widgets"));
    await assert.rejects(
      root.create(root.dirFor(REPO, 7), run("a")),
      (e: unknown) => e instanceof Refusal && e.reason === "bad-input" && /acme__widgets is a symbolic link/.test(e.message),
    );
    rmSync(join(root.root, "acme__widgets"));
    mkdirSync(join(root.root, "acme__widgets"));
    symlinkSync(elsewhere, root.dirFor(REPO, 9));
    await assert.rejects(root.create(root.dirFor(REPO, 9), run("b")), /issue-9 is a symbolic link/);
    const d = root.dirFor(REPO, 10);
    mkdirSync(d);
    writeFileSync(join(elsewhere, "secret.json"), "{}");
    symlinkSync(join(elsewhere, "secret.json"), join(d, "run.json"));
    const read = await root.read(d);
    assert.equal(read.kind, "invalid");
    assert.match(read.kind === "invalid" ? read.reason : "", /run\.json is a symbolic link/);
    assert.deepEqual(readdirSync(elsewhere), ["secret.json"]);
  });

  it("of 40 simultaneous exclusive creates exactly one wins; the others see the winner's run.json", async () => {
    const root = new FsRunRoot(dir);
    const d = root.dirFor(REPO, 7);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => root.create(d, run(`s${i}`))));
    assert.equal(results.filter((r) => r.kind === "created").length, 1);
    const winner = JSON.parse(readFileSync(join(d, "run.json"), "utf8")).session;
    // run.json appears whole: no loser ever reads a half-written one.
    for (const r of results)
      assert.deepEqual(r.kind === "exists" ? [r.current.kind, r.current.kind === "ok" && r.current.run.session] : ["ok", winner], ["ok", winner]);
    assert.deepEqual(readdirSync(d), ["run.json"], "no temp file is left behind");
  });

  it("moves a run aside into superseded/<timestamp>/ (never deletes), and only its own with ifSession", async () => {
    const root = new FsRunRoot(dir);
    const d = root.dirFor(REPO, 7);
    await root.create(d, run("mine"));
    writeFileSync(join(d, "notes.txt"), "hours of work");
    assert.equal(await root.moveAside(d, { reason: "test", at: "2026-11-30T01:02:03.456Z" }, { ifSession: "someone-else" }), null);
    const archived = await root.moveAside(d, { reason: "test", at: "2026-11-30T01:02:03.456Z" }, { ifSession: "mine" });
    assert.equal(archived, join(d, "superseded", "2026-11-30T01-02-03-456Z"));
    assert.deepEqual(readdirSync(archived!).sort(), ["moved-aside.json", "notes.txt", "run.json"]);
    assert.deepEqual(readdirSync(d), ["superseded"]);
    // A second move in the same millisecond gets its own folder.
    await root.create(d, run("next"));
    const again = await root.moveAside(d, { reason: "test", at: "2026-11-30T01:02:03.456Z" });
    assert.notEqual(again, archived);
    assert.ok(existsSync(join(again!, "run.json")));
  });

  it("reads a broken run.json as invalid (never overwritten) and lists run directories", async () => {
    const root = new FsRunRoot(dir);
    const d = root.dirFor(REPO, 9);
    await root.create(root.dirFor(REPO, 7), run("a"));
    await root.create(d, run("b", 9));
    writeFileSync(join(d, "run.json"), "{ half");
    assert.equal((await root.read(d)).kind, "invalid");
    assert.equal((await root.create(d, run("c", 9))).kind, "exists");
    const listed = await root.list(REPO);
    assert.deepEqual(
      listed.map((l) => [l.ticket, l.read.kind]),
      [
        [7, "ok"],
        [9, "invalid"],
      ],
    );
  });

  it("reads a FIFO or a folder at run.json as invalid, without waiting for a writer", async () => {
    const root = new FsRunRoot(dir);
    const d = root.dirFor(REPO, 7);
    await root.create(d, run("a"));
    rmSync(join(d, "run.json"));
    execFileSync("mkfifo", [join(d, "run.json")]);
    const fifo = await root.read(d);
    assert.equal(fifo.kind, "invalid");
    assert.match(fifo.kind === "invalid" ? fifo.reason : "", /not a regular file/);
    rmSync(join(d, "run.json"));
    mkdirSync(join(d, "run.json"));
    assert.equal((await root.read(d)).kind, "invalid");
  });
});
