import { strict as assert } from "node:assert";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import { NodeHost } from "../../../src/adapters/node-host";
import { cloneStore } from "../../../src/adapters/git/clone-store";
import { checkoutForRun, originUrl } from "../../../src/adapters/git/checkout";
import { takeTopFound } from "../../../src/adapters/git/checkout-found";
import type { GitRunner } from "../../../src/adapters/git/git-runner";
import { Refusal } from "../../../src/core/errors";
import { Sandbox } from "../../../src/adapters/isolation/sandbox";
import type { Lane } from "../../../src/ports/workspace";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, makeRemote, makeTempDir } from "../../support/git-fixtures";
import { waitFor } from "../../support/wait-for";
import { ISOLATED_GIT_ENV, workspaceOn } from "./support/workspace-fixture";

/** Gone includes a zombie nobody has reaped yet (the check's grandchild is reparented). */
async function gone(pid: number): Promise<boolean> {
  return (await new NodeHost().processStartTime(pid)) === null;
}

describe("workspace: Checks in a lane", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;
  let lane: Lane;

  before(async () => {
    fx = await makeRemote();
    ws = workspaceOn(await fx.clone("target"), { checkEnv: { GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" } });
    await ws.fetchBase("main");
    lane = await ws.cutLane(1, "agent/1-checks", "main");
  });
  after(async () => {
    await fx.cleanup();
  });

  it("runs argv without a shell, in the worktree, and reports the exit code and output", async () => {
    const res = await ws.runCheck(lane, ["node", "-e", "console.log(process.cwd()); console.error('to stderr'); process.exit(3)"], 30_000);
    assert.equal(res.exitCode, 3);
    assert.equal(res.timedOut, false);
    assert.match(res.output, new RegExp(lane.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    assert.match(res.output, /to stderr/);
    // A shell metacharacter is an argument like any other.
    const echo = await ws.runCheck(lane, ["node", "-e", "console.log(process.argv[1])", "$(whoami); rm -rf /"], 30_000);
    assert.equal(echo.output.trim(), "$(whoami); rm -rf /");
    assert.equal(echo.command, "node -e 'console.log(process.argv[1])' '$(whoami); rm -rf /'");
  });

  it("kills the check's whole process group at the timeout and keeps what it printed", async () => {
    const pidFile = join(lane.path, "grandchild.pid");
    const script = [
      "const { spawn } = require('child_process');",
      "const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));`,
      "console.log('partial output before hanging');",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const res = await ws.runCheck(lane, ["node", "-e", script], 1500);
    assert.equal(res.timedOut, true);
    assert.equal(res.exitCode, null);
    assert.match(res.output, /partial output before hanging/);
    assert.match(res.output, /timed out after 1500 ms/);
    const grandchild = Number(await readFile(pidFile, "utf8"));
    await waitFor(() => gone(grandchild), { what: "the check's grandchild to be killed" });
  });

  it("keeps only the tail of a huge output", async () => {
    const res = await ws.runCheck(
      lane,
      ["node", "-e", "for (let i = 0; i < 30000; i++) console.log('line ' + i + ' ' + 'x'.repeat(60)); console.log('THE END')"],
      60_000,
    );
    assert.equal(res.exitCode, 0);
    assert.ok(res.output.length <= 1024 * 1024 + 200, `kept ${res.output.length} chars`);
    assert.match(res.output, /^\[\.\.\. \d+ bytes of earlier output dropped \.\.\.\]/);
    assert.match(res.output, /THE END\n$/);
  });

  it("removes secrets from the output", async () => {
    const res = await ws.runCheck(lane, ["node", "-e", "console.log('token=' + process.env.GITHUB_TOKEN)"], 30_000);
    assert.equal(res.output.trim(), "token=***");
  });

  it("reports a command that cannot start instead of throwing", async () => {
    const res = await ws.runCheck(lane, ["definitely-not-a-command-xyz"], 30_000);
    assert.equal(res.exitCode, null);
    assert.match(res.output, /could not start/);
  });
});

describe("workspace: preflight refusals say the exact fix", () => {
  let fx: RemoteFixture;
  beforeEach(async () => {
    fx = await makeRemote();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  async function refusal(ws: GitWorkspace): Promise<Refusal> {
    const e = await ws.preflight("main").then(
      () => null,
      (err: unknown) => err,
    );
    assert.ok(e instanceof Refusal, `expected a Refusal, got ${String(e)}`);
    return e;
  }

  it("passes a clean clone on a branch", async () => {
    await workspaceOn(await fx.clone("ok")).preflight("main");
  });

  it("reads a branch's HEAD from its file and the clone's store with its top; git is asked only for another HEAD", async () => {
    const root = await fx.clone("counted");
    const traced = async (): Promise<string[]> => {
      const trace = join(root, "..", "counted-trace.txt");
      await rm(trace, { force: true });
      await workspaceOn(root, { env: { ...ISOLATED_GIT_ENV, GIT_TRACE: trace } })
        .preflight("main")
        .catch(() => undefined);
      const lines = (await readFile(trace, "utf8")).split("\n");
      return lines.flatMap((l) => /trace: built-in: git (\S+)/.exec(l)?.[1] ?? []);
    };
    const onBranch = await traced();
    assert.deepEqual(
      onBranch.filter((c) => c !== "config"),
      ["rev-parse", "remote", "status"],
    );
    // The store the preflight read is the one the Run's fetches use: no second rev-parse (ADR 0481).
    const noGit = { text: () => Promise.reject(new Error("git was asked for the store again")) } as unknown as GitRunner;
    assert.equal((await cloneStore(noGit, root)).commonDir, join(root, ".git"));
    // After `ticket-runner run` found the origin remote (originUrl, in the same process), the preflight does not ask again.
    assert.equal(originUrl(root), fx.remote);
    assert.deepEqual(
      (await traced()).filter((c) => c !== "config"),
      ["rev-parse", "status"],
    );
    // After `ticket-runner run` asked for its top with the preflight's own arguments (ADR 0490), in a
    // folder of the clone, the preflight takes that answer once: no rev-parse of its own, the same store.
    await mkdir(join(root, "deep", "er"), { recursive: true });
    // Its origin's URL comes with it, asked at once (ADR 0495), and the preflight does not ask for it either.
    assert.deepEqual(await checkoutForRun(join(root, "deep", "er")), { top: root, origin: fx.remote });
    assert.deepEqual(
      (await traced()).filter((c) => c !== "config"),
      ["status"],
    );
    // git named the common directory relative to that folder ("../../.git"): kept as the clone's own.
    await checkoutForRun(join(root, "deep", "er"));
    assert.deepEqual(takeTopFound(root), {
      top: root,
      gitDir: join(root, ".git"),
      store: { commonDir: join(root, ".git"), dir: join(root, ".git", "objects"), algorithm: "sha1" },
    });
    assert.deepEqual(
      (await traced()).filter((c) => c !== "config"),
      ["rev-parse", "status"],
    );
    // A HEAD file of another shape (here a commit id) is asked of git, which refuses it as before.
    await git(root, ["checkout", "-q", "--detach"]);
    assert.ok((await traced()).includes("symbolic-ref"));
    const r = await refusal(workspaceOn(root));
    assert.match(r.message, /detached HEAD/);
  });

  it("refuses a directory that is not a repository", async () => {
    const dir = await makeTempDir();
    try {
      const r = await refusal(workspaceOn(dir));
      assert.equal(r.reason, "not-a-target");
      assert.match(r.details.next ?? "", /git clone/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a clone with no remote", async () => {
    const root = await fx.clone("no-remote");
    await git(root, ["remote", "remove", "origin"]);
    const r = await refusal(workspaceOn(root));
    assert.equal(r.reason, "not-a-target");
    assert.equal(r.details.next, `git -C ${root} remote add origin https://github.com/<owner>/<repo>.git`);
  });

  it("refuses a detached HEAD", async () => {
    const root = await fx.clone("detached");
    await git(root, ["checkout", "-q", "--detach"]);
    const r = await refusal(workspaceOn(root));
    assert.match(r.message, /detached HEAD/);
    assert.match(r.details.next ?? "", new RegExp(`git -C ${root} switch main`));
  });

  it("refuses a dirty main checkout, but not untracked files", async () => {
    const root = await fx.clone("dirty");
    await writeFile(join(root, "untracked.txt"), "mine\n");
    await workspaceOn(root).preflight("main");
    await writeFile(join(root, "README.md"), "edited\n");
    const r = await refusal(workspaceOn(root));
    assert.equal(r.reason, "dirty-checkout");
    assert.match(r.message, /README\.md/);
    assert.match(r.details.next ?? "", /stash push/);
    // bwrap's proof runs beside these checks (ADR 0495): where it fails too, theirs is the refusal given, as when it ran after them.
    const bwrap = join(root, "..", "failing-bwrap");
    await writeFile(bwrap, "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    const both = await refusal(workspaceOn(root, { sandbox: new Sandbox({ mode: "sandbox", bwrap }) }));
    assert.equal(both.reason, "dirty-checkout");
  });

  it("refuses State files left in the checkout by an older version, naming the tickets", async () => {
    const root = await fx.clone("legacy");
    await mkdir(join(root, ".ticket-runner", "state"), { recursive: true });
    await writeFile(join(root, ".ticket-runner", "state", "ticket-4.json"), "{}");
    const r = await refusal(workspaceOn(root));
    assert.equal(r.reason, "bad-input");
    assert.match(r.message, /#4/);
  });
});
