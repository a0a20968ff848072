import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isolationFor } from "../../../src/app/compose-run";
import { mounts, Sandbox } from "../../../src/adapters/isolation/sandbox";
import { pinnedGlobalConfig } from "../../../src/adapters/git/config-files";
import { configSchema } from "../../../src/core/schemas/config";

describe("the sandbox's settings (ADR 0290)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tr-sandbox-unit-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("isolation: sandbox on Linux unless the config says none; nothing else is taken", () => {
    assert.equal(isolationFor(configSchema.parse({}), "linux"), "sandbox");
    assert.equal(isolationFor(configSchema.parse({}), "darwin"), "none");
    assert.equal(isolationFor(configSchema.parse({ isolation: "none" }), "linux"), "none");
    assert.equal(configSchema.safeParse({ isolation: "container" }).success, false);
  });

  it("off, a command runs as given; on, not before the preflight prepared it", () => {
    assert.deepEqual(new Sandbox({ mode: "none" }).wrap(["npm", "test"], dir), ["npm", "test"]);
    assert.throws(() => new Sandbox({ mode: "sandbox" }).wrap(["npm", "test"], dir), /preflight/);
  });

  it("the clone's control files and the lane's pointers are mounted read-only after every writable place", () => {
    const root = join(dir, "clone");
    const common = join(root, ".git");
    const lane = join(root, ".worktrees", "ticket-1");
    const laneGit = join(common, "worktrees", "ticket-1");
    for (const d of [join(common, "hooks"), join(common, "info"), laneGit, lane]) mkdirSync(d, { recursive: true });
    for (const f of [join(common, "config"), join(laneGit, "commondir"), join(laneGit, "gitdir")]) writeFileSync(f, "");
    writeFileSync(join(lane, ".git"), `gitdir: ${laneGit}\n`);
    const args = mounts({ root, commonDir: common, configFiles: [join(common, "config"), "/dev/null"] }, lane, { HOME: dir });
    const at = (flag: string, path: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === path);
    const lastWritable = Math.max(at("--bind", dir), at("--bind", common), at("--bind", lane), at("--bind", laneGit));
    for (const ro of [
      join(common, "config"),
      join(common, "hooks"),
      join(common, "info"),
      join(laneGit, "commondir"),
      join(laneGit, "gitdir"),
      join(lane, ".git"),
    ]) {
      assert.ok(at("--ro-bind", ro) > at("--bind", common), `${ro} read-only over the common dir`);
    }
    assert.ok(at("--ro-bind", join(lane, ".git")) > lastWritable, "the lane's .git after the lane");
    assert.ok(at("--ro-bind", root) > at("--bind", dir), "the clone read-only over the home folder it lies in");
    assert.equal(at("--ro-bind", "/dev/null"), -1, "nothing under /dev is bound");
    assert.deepEqual(args.slice(0, 3), ["--ro-bind", "/", "/"]);
  });

  it("the Run's git reads no global config made after its start", () => {
    const home = join(dir, "home");
    mkdirSync(home);
    assert.deepEqual(pinnedGlobalConfig({ HOME: home }), { GIT_CONFIG_GLOBAL: "/dev/null" });
    writeFileSync(join(home, ".gitconfig"), "");
    assert.deepEqual(pinnedGlobalConfig({ HOME: home }), { GIT_CONFIG_GLOBAL: join(home, ".gitconfig") });
    mkdirSync(join(home, ".config", "git"), { recursive: true });
    writeFileSync(join(home, ".config", "git", "config"), "");
    assert.deepEqual(pinnedGlobalConfig({ HOME: home }), {}, "two files: both are held read-only in the sandbox");
    assert.deepEqual(pinnedGlobalConfig({ HOME: home, GIT_CONFIG_GLOBAL: join(dir, "missing") }), { GIT_CONFIG_GLOBAL: "/dev/null" });
  });
});
