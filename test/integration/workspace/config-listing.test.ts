/**
 * The preflight's read of the clone's whole config (for the sandbox's read-only files) also names
 * its filters and merge drivers (ADR 0509): the git calls after it switch the same ones off as a
 * `--get-regexp` of their own would, and start no such process while the files are unchanged.
 */
import { strict as assert } from "node:assert";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { driverEntriesOf, driverNames } from "../../../src/adapters/git/driver-overrides";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import type { RemoteFixture } from "../../support/git-fixtures";
import { git, makeRemote } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

describe("workspace: the config listing names the filters and merge drivers (ADR 0509)", () => {
  let fx: RemoteFixture;
  let root: string;

  before(async () => {
    fx = await makeRemote({ files: { "README.md": "hello\n", ".gitattributes": "*.md filter=Evil merge=mine\n" } });
    root = await fx.clone("target");
    // A filter with a dot and an `=` in its name, a merge driver, a value-less key and a mixed-case section.
    appendFileSync(
      join(root, ".git", "config"),
      '[filter "Evil"]\n\tclean = false\n[filter "a=b.c"]\n\tprocess = x\n[merge "mine"]\n\tdriver = true\n[Merge "Other"]\n\tname\n[core]\n\tquotepath = false\n',
    );
  });
  after(async () => {
    await fx.cleanup();
  });

  it("gives the names git's own --get-regexp gives", async () => {
    const list = await git(root, ["config", "-z", "--show-origin", "--list"]);
    const regexp = await git(root, ["config", "-z", "--get-regexp", "^(filter|merge|include|includeif)\\."]);
    const fromList = driverNames(driverEntriesOf(list));
    assert.deepEqual(fromList, driverNames(regexp));
    assert.deepEqual(fromList.filters.sort(), ["Evil", "a=b.c"].sort());
    assert.deepEqual(fromList.merges.sort(), ["Other", "mine"].sort());
  });

  it("after it, a call in the clone starts no --get-regexp, and still runs with the filter switched off", async () => {
    const started: string[] = [];
    const stop = watchGitProcesses((args) => started.push(args.join(" ")));
    try {
      const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
      assert.equal((await runner.configListing(root)).code, 0);
      appendFileSync(join(root, "README.md"), "more\n");
      await runner.text(["add", "README.md"], { cwd: root });
      const listed = await runner.text(["config", "--get", "filter.Evil.clean"], { cwd: root });
      assert.equal(listed, "", "the call's environment empties the clone's filter");
    } finally {
      stop();
    }
    assert.equal(started.filter((a) => a.includes("--get-regexp")).length, 0, started.join("\n"));
    assert.equal(started.filter((a) => a.includes("--show-origin")).length, 1, started.join("\n"));
  });
});
