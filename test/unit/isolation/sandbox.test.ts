import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isolationFor } from "../../../src/app/compose-run";
import { Sandbox } from "../../../src/adapters/isolation/sandbox";
import { mounts, privateDirs } from "../../../src/adapters/isolation/mounts";
import { pinnedGlobalConfig } from "../../../src/adapters/git/config-files";
import { configSchema } from "../../../src/core/schemas/config";
import { Refusal } from "../../../src/core/errors";

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

  it("prepare refuses where bwrap is missing or cannot make a sandbox, whether its proof was started beside the preflight's checks or not (ADR 0495)", async () => {
    const layout = { root: dir, commonDir: join(dir, ".git"), configFiles: [] };
    const refusal = async (sandbox: Sandbox) => {
      const error = await sandbox.prepare(layout).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error instanceof Refusal, String(error));
      assert.equal(error.reason, "no-sandbox");
      return error.message;
    };
    const missing = new Sandbox({ mode: "sandbox", bwrap: join(dir, "no-bwrap") });
    missing.startProbe(dir);
    assert.match(await refusal(missing), /bwrap is not installed/);
    const failing = join(dir, "failing-bwrap");
    writeFileSync(failing, "#!/bin/sh\necho 'no user namespaces here' >&2\nexit 1\n", { mode: 0o755 });
    for (const early of [true, false]) {
      const sandbox = new Sandbox({ mode: "sandbox", bwrap: failing });
      if (early) sandbox.startProbe(dir);
      assert.match(await refusal(sandbox), /could not make one here: no user namespaces here/);
    }
  });

  it("the clone's control files and the lane's pointers are mounted read-only after every writable place", () => {
    const root = join(dir, "clone");
    const common = join(root, ".git");
    const lane = join(root, ".worktrees", "ticket-1");
    const laneGit = join(common, "worktrees", "ticket-1");
    for (const d of [join(common, "hooks"), join(common, "info"), laneGit, lane]) mkdirSync(d, { recursive: true });
    for (const f of [join(common, "config"), join(laneGit, "commondir"), join(laneGit, "gitdir")]) writeFileSync(f, "");
    writeFileSync(join(lane, ".git"), `gitdir: ${laneGit}\n`);
    const home = join(dir, "home");
    mkdirSync(home);
    const args = mounts({ layout: { root, commonDir: common, configFiles: [join(common, "config"), "/dev/null"] }, cwd: lane, env: { HOME: home } });
    const at = (flag: string, path: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === path);
    const lastWritable = Math.max(at("--bind", join(home, ".claude")), at("--bind", common), at("--bind", lane), at("--bind", laneGit));
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
    assert.ok(at("--ro-bind", root) > at("--bind", join(home, ".cache")), "the clone read-only over any writable place it lies in");
    assert.equal(at("--ro-bind", "/dev/null"), -1, "nothing under /dev is bound");
    assert.deepEqual(args.slice(0, 3), ["--ro-bind", "/", "/"]);
  });

  it("the temp folders and the runtime dir are private; the home folder read-only but for the agents' state (ADR 0341)", () => {
    // Fails on the code before ADR 0341: /tmp, /var/tmp, $TMPDIR and the home folder were bound writable, the runtime dir shown.
    const runtime = join(dir, "run-user");
    const home = join(dir, "home");
    const root = join(home, "src", "clone");
    const script = join(tmpdir(), `tr-sandbox-unit-agent-${process.pid}.js`);
    for (const d of [runtime, join(root, ".git")]) mkdirSync(d, { recursive: true });
    writeFileSync(script, "");
    try {
      const env = { HOME: home, XDG_RUNTIME_DIR: runtime, TMPDIR: "/var/tmp" };
      const args = mounts({ layout: { root, commonDir: join(root, ".git"), configFiles: [] }, cwd: root, env, argv: ["/usr/bin/node", script] });
      const at = (flag: string, path: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === path);
      const hidden = privateDirs([env]);
      assert.ok(hidden.includes("/tmp") && hidden.includes("/var/tmp"), hidden.join(" "));
      assert.ok(!hidden.includes(runtime), "the runtime dir lies in /tmp here: gone with it");
      for (const d of hidden) assert.ok(at("--tmpfs", d) > 0, `${d} is a tmpfs of the sandbox's own`);
      for (const w of ["/tmp", "/var/tmp", home]) assert.equal(at("--bind", w), -1, `${w} is not bound writable`);
      assert.ok(at("--ro-bind", home) > at("--tmpfs", "/tmp"), "the home folder, which lies in /tmp here, is shown again read-only");
      for (const s of [".claude", ".codex", ".gemini", ".cache", ".npm", ".claude.json"]) {
        assert.ok(at("--bind", join(home, s)) > at("--ro-bind", home), `~/${s} writable`);
        assert.ok(existsSync(join(home, s)), `~/${s} made so it can be bound`);
      }
      assert.equal(readFileSync(join(home, ".claude.json"), "utf8"), "{}\n");
      // Made when missing and read-only over the writable ~/.cache: the Host's programs and the CLI's code cache (ADR 0481).
      assert.ok(at("--ro-bind", join(home, ".cache", "ticket-runner")) > at("--bind", join(home, ".cache")), "~/.cache/ticket-runner read-only");
      assert.ok(at("--ro-bind", script) > at("--tmpfs", "/tmp"), "the script the command line names is shown read-only");
      assert.ok(at("--ro-bind", root) > at("--bind", join(home, ".cache")), "the clone read-only");
      const elsewhere = join(process.cwd(), "docs");
      assert.ok(privateDirs([{ XDG_RUNTIME_DIR: elsewhere }]).includes(elsewhere), "a runtime dir outside the temp folders is private too");
    } finally {
      rmSync(script, { force: true });
    }
  });

  it("a Check sees none of the agents' state: their folders empty, ~/.claude.json unreadable, nothing made; the caches shared", () => {
    // Fails on the code before: a Check's sandbox bound ~/.claude, ~/.codex, ~/.gemini and ~/.claude.json writable.
    const home = join(dir, "home");
    const root = join(home, "src", "clone");
    mkdirSync(join(root, ".git"), { recursive: true });
    for (const d of [".claude", ".codex"]) mkdirSync(join(home, d));
    writeFileSync(join(home, ".claude.json"), '{"oauthAccount":{}}\n');
    const env = { HOME: home };
    const args = mounts({ layout: { root, commonDir: join(root, ".git"), configFiles: [] }, cwd: root, env, who: "check" });
    const at = (flag: string, path: string, to = path): number =>
      args.findIndex((a, i) => a === flag && args[i + 1] === path && (flag === "--tmpfs" || args[i + 2] === to));
    for (const d of [".claude", ".codex"]) {
      assert.ok(at("--tmpfs", join(home, d)) > 0, `~/${d} is an empty folder of the sandbox's own`);
      assert.equal(at("--bind", join(home, d)), -1, `~/${d} is not bound`);
    }
    assert.equal(existsSync(join(home, ".gemini")), false, "a missing agent folder is not made for a Check");
    assert.equal(at("--tmpfs", join(home, ".gemini")), -1);
    assert.ok(at("--ro-bind", "/dev/null", join(home, ".claude.json")) > 0, "~/.claude.json cannot be read");
    assert.equal(at("--bind", join(home, ".claude.json")), -1);
    for (const c of [".cache", ".npm"]) assert.ok(at("--bind", join(home, c)) > 0, `~/${c} writable for the Checks too`);
    // The same layout for an agent: its state bound writable, as before.
    const agent = mounts({ layout: { root, commonDir: join(root, ".git"), configFiles: [] }, cwd: root, env });
    assert.ok(agent.some((a, i) => a === "--bind" && agent[i + 1] === join(home, ".claude")));
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
