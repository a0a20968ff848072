import { strict as assert } from "node:assert";
import type { GitWorkspace } from "../../../src/adapters/git/git-workspace";
import type { RemoteFixture } from "../../support/git-fixtures";
import { commitFiles, git, makeRemote } from "../../support/git-fixtures";
import { workspaceOn } from "./support/workspace-fixture";

describe("workspace: did a neighbour's merge touch this lane's files", () => {
  let fx: RemoteFixture;
  let ws: GitWorkspace;

  beforeEach(async () => {
    fx = await makeRemote({ files: { "README.md": "base\n", "src/a.txt": "one\n", "src/b.txt": "two\n" } });
    ws = workspaceOn(await fx.clone("target"));
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  async function neighbourMerges(files: Record<string, string>, name: string): Promise<void> {
    const other = await fx.clone(name);
    await commitFiles(other, files, `neighbour ${name}`);
    await git(other, ["push", "-q", "origin", "HEAD:main"]);
  }

  it("no while the base has not moved or moved elsewhere; yes once it changes a file the lane changes", async () => {
    await ws.fetchBase("main");
    const lane = await ws.cutLane(4, ws.branchFor(4, "Change a"), "main");
    await commitFiles(lane.path, { "src/a.txt": "one, changed by the lane\n", "src/new.txt": "new\n" }, "lane work");
    assert.equal(await ws.baseTouches(lane, "main"), false, "the base has not moved");

    await neighbourMerges({ "src/b.txt": "two, changed by a neighbour\n", "src/other.txt": "x\n" }, "n1");
    await ws.fetchBase("main");
    assert.equal(await ws.baseTouches(lane, "main"), false, "the neighbour changed other files");

    await neighbourMerges({ "src/new.txt": "the neighbour made it too\n" }, "n2");
    await ws.fetchBase("main");
    assert.equal(await ws.baseTouches(lane, "main"), true, "a file both add");

    assert.equal(await ws.rebaseOnto(lane, "main"), "conflict");
    await ws.abortRebaseInProgress(lane);
  });

  it("after a rebase onto the moved base, only what the base gained since counts", async () => {
    await ws.fetchBase("main");
    const lane = await ws.cutLane(5, ws.branchFor(5, "Change a"), "main");
    await commitFiles(lane.path, { "src/a.txt": "one, changed by the lane\n" }, "lane work");
    await neighbourMerges({ "src/b.txt": "two, changed\n" }, "n1");
    await ws.fetchBase("main");
    assert.equal(await ws.rebaseOnto(lane, "main"), "clean");
    assert.equal(await ws.baseTouches(lane, "main"), false, "rebased: nothing new on the base");
    await neighbourMerges({ "src/b.txt": "two, changed again\n", "src/a.txt": "one, changed by a neighbour\n" }, "n2");
    await ws.fetchBase("main");
    assert.equal(await ws.baseTouches(lane, "main"), true);
  });
});
