/**
 * readPaths (record-refs.ts) reads `<commit>:<path>` and blob ids from the clone's objects, loose or
 * packed, with no process (ADR 0509), and must answer what one `cat-file --batch` answers: a file's
 * bytes, null for a path that names nothing or no blob; anything it cannot read here goes to git.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cloneStore } from "../../../src/adapters/git/clone-store";
import { GitRunner } from "../../../src/adapters/git/git-runner";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { readPaths } from "../../../src/adapters/git/record-refs";
import type { RepoContext } from "../../../src/adapters/git/repo-context";
import { RemoteGit } from "../../../src/adapters/git/remote-git";
import { git, makeTempDir } from "../../support/git-fixtures";
import { ISOLATED_GIT_ENV } from "./support/workspace-fixture";

/** What `git cat-file --batch` itself says of each spec: the blob's bytes, else null. */
function catFile(root: string, specs: string[]): (Buffer | null)[] {
  const out = execFileSync("git", ["cat-file", "--batch"], { cwd: root, input: `${specs.join("\n")}\n`, env: { ...process.env, ...ISOLATED_GIT_ENV } });
  const found: (Buffer | null)[] = [];
  let pos = 0;
  for (const _ of specs) {
    const nl = out.indexOf(0x0a, pos);
    const m = / (blob|tree|commit|tag) ([0-9]+)$/.exec(out.subarray(pos, nl).toString("utf8"));
    pos = nl + 1;
    if (!m) {
      found.push(null);
      continue;
    }
    found.push(m[1] === "blob" ? out.subarray(pos, pos + Number(m[2])) : null);
    pos += Number(m[2]) + 1;
  }
  return found;
}

describe("workspace: record files read from the clone's objects (ADR 0509)", () => {
  let ctx: RepoContext;
  let commit: string;
  let specs: string[];

  before(async () => {
    const root = await makeTempDir("tr-read-paths-");
    await git(root, ["init", "--quiet"]);
    await writeFile(join(root, "ticket-8.json"), '{"ticket":8}\n');
    await mkdir(join(root, "a", "b"), { recursive: true });
    await writeFile(join(root, "a", "b", "lock-h.json"), Buffer.from([0, 1, 2, 255, 10]));
    await writeFile(join(root, "empty"), "");
    await symlink("ticket-8.json", join(root, "link"));
    await git(root, ["add", "-A"]);
    await git(root, ["commit", "--quiet", "-m", "records"]);
    commit = await git(root, ["rev-parse", "HEAD"]);
    const blob = await git(root, ["rev-parse", "HEAD:ticket-8.json"]);
    const runner = new GitRunner({ env: ISOLATED_GIT_ENV });
    ctx = { git: runner, root, remote: "origin", net: new RemoteGit(runner, { root, remote: "origin", url: root }) };
    // Where the clone keeps its objects is asked once a process (a Run knows it from its preflight).
    await cloneStore(runner, root);
    specs = [
      `${commit}:ticket-8.json`,
      `${commit}:a/b/lock-h.json`,
      `${commit}:empty`,
      `${commit}:link`,
      blob,
      `${commit}:a`,
      `${commit}:a/b`,
      `${commit}:missing.json`,
      `${commit}:ticket-8.json/below`,
      `${commit}:a/missing/x`,
    ];
  });

  for (const stored of ["loose", "packed"] as const) {
    it(`answers as cat-file does, every object ${stored}, and starts no git`, async () => {
      if (stored === "packed") {
        await git(ctx.root, ["gc", "--quiet", "--prune=now"]);
        assert.equal(await git(ctx.root, ["count-objects"]), "0 objects, 0 kilobytes");
      }
      const started: string[] = [];
      const stop = watchGitProcesses((args) => started.push(args.join(" ")));
      const read = await readPaths(ctx, specs).finally(stop);
      assert.deepEqual(read, catFile(ctx.root, specs));
      assert.equal(read.filter((b) => b !== null).length, 5);
      assert.deepEqual(started, []);
    });
  }

  it("asks git when a spec does not read here: an object this clone lacks, a name that is not an id", async () => {
    const odd = [`${"0".repeat(40)}:ticket-8.json`, "HEAD:ticket-8.json", `${commit}:./ticket-8.json`, `${commit}:ticket-8.json`];
    const started: string[] = [];
    const stop = watchGitProcesses((args) => started.push(args.join(" ")));
    const read = await readPaths(ctx, odd).finally(stop);
    assert.deepEqual(read, catFile(ctx.root, odd));
    assert.equal(started.filter((a) => a.includes("cat-file --batch")).length, 1, started.join("\n"));
  });
});
