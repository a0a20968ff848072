/**
 * The contract of a call whose output is kept, as both spawners keep it: the Python spawner (ADR
 * 0480, length-prefixed frames, posix_spawn) and the Node spawner (ADR 0261, Node's IPC). Each case
 * would fail on a wrong framing: bytes of every value, megabytes in and out at once, many calls
 * interleaved, the idle kill, a signal, a missing program, the environment reaching the process.
 * The Python program's SIGCHLD way (no pidfd_open) keeps it too; it never writes to its stderr,
 * and a frame it cannot read ends it. And a Run process with no python3 on PATH (a pyenv shim is
 * not one) still runs its git, through the Node spawner, saying so once.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { encodeFrame, FrameReader } from "../../../src/adapters/spawner/frames";
import type { Frame } from "../../../src/adapters/spawner/frames";
import { PY_SPAWNER_SOURCE } from "../../../src/adapters/spawner/py-spawner-source";
import { callPySpawner, findPython } from "../../../src/adapters/spawner/py-spawner";
import type { KeptCall, KeptReply } from "../../../src/adapters/spawner/py-spawner";
import { callSpawner } from "../../../src/adapters/spawner/spawner";
import type { SpawnerMessage } from "../../../src/adapters/spawner/spawner";

const ROOT = path.resolve(__dirname, "../../..");

/** One kept call through the named spawner; a lost spawner fails the test. */
function runKept(way: "python" | "node", call: KeptCall): Promise<KeptReply> {
  if (way === "python") {
    return callPySpawner(call, "check").then((o) => {
      if ("reply" in o) return o.reply;
      throw new Error(`the Python spawner was lost: ${o.lost}`);
    });
  }
  return new Promise((resolve, reject) => {
    callSpawner({
      kind: "check",
      request: { ...call, args: [...call.args] },
      onMessage(m: SpawnerMessage) {
        const bytes = (u: unknown): Buffer => Buffer.from(u as Uint8Array);
        resolve({
          code: m.code as number | null,
          signal: m.signal as string | null,
          stdout: bytes(m.stdout),
          stderr: bytes(m.stderr),
          error: m.error as string | null,
          idle: m.idle as boolean,
        });
        return true;
      },
      onLost: (why) => reject(new Error(`the Node spawner was lost: ${why}`)),
    });
  });
}

function sh(script: string, extra: Partial<KeptCall> = {}): KeptCall {
  return { command: "sh", args: ["-c", script], cwd: ROOT, env: { PATH: process.env.PATH }, input: null, idleMs: 30_000, ...extra };
}

describe("workspace: calls whose output is kept, through either spawner", function () {
  this.timeout(60_000);

  for (const way of ["python", "node"] as const) {
    describe(`the ${way} spawner`, () => {
      it("stdin of every byte value comes back as stdout and as stderr, byte for byte", async () => {
        const every = Buffer.from(Array.from({ length: 256 * 3 }, (_, i) => (i * 7) % 256));
        const r = await runKept(way, sh("cat; printf '\\000\\377\\n' >&2", { input: every }));
        assert.equal(r.code, 0);
        assert.ok(r.stdout.equals(every), "stdout as written");
        assert.ok(r.stderr.equals(Buffer.from([0, 255, 10])), `stderr as written: ${r.stderr.toString("hex")}`);
      });

      it("megabytes in and out at once: stdin is written while stdout is read", async () => {
        const big = randomBytes(3_000_000);
        const r = await runKept(way, sh("cat", { input: big }));
        assert.equal(r.code, 0);
        assert.equal(r.stdout.length, big.length);
        assert.ok(r.stdout.equals(big));
      });

      it("an empty input is an empty stdin, and no input is /dev/null", async () => {
        const empty = await runKept(way, sh("wc -c", { input: new Uint8Array(0) }));
        assert.equal(empty.stdout.toString("utf8").trim(), "0");
        const none = await runKept(way, sh("wc -c"));
        assert.equal(none.stdout.toString("utf8").trim(), "0");
      });

      it("many calls at once each get their own output", async () => {
        const inputs = Array.from({ length: 12 }, (_, i) => randomBytes(50_000 + i * 20_000));
        const replies = await Promise.all(inputs.map((input, i) => runKept(way, sh(`cat; exit ${i}`, { input }))));
        replies.forEach((r, i) => {
          assert.equal(r.code, i);
          assert.ok(r.stdout.equals(inputs[i]!), `call ${i} got its own bytes`);
        });
      });

      it("exit codes and signals come back as the process ended", async () => {
        const code = await runKept(way, sh("printf out; exit 7"));
        assert.deepEqual([code.code, code.signal, code.stdout.toString(), code.idle, code.error], [7, null, "out", false, null]);
        const killed = await runKept(way, sh("kill -TERM $$"));
        assert.deepEqual([killed.code, killed.signal], [null, "SIGTERM"]);
      });

      it("a process without output for idleMs is stopped (SIGKILL) and said to be idle; output keeps it going", async () => {
        const quiet = await runKept(way, sh("exec sleep 30", { idleMs: 300 }));
        assert.deepEqual([quiet.code, quiet.signal, quiet.idle], [null, "SIGKILL", true]);
        const talking = await runKept(way, sh("for i in 1 2 3 4 5 6; do printf x; sleep 0.1; done", { idleMs: 400 }));
        assert.deepEqual([talking.code, talking.idle, talking.stdout.toString()], [0, false, "xxxxxx"]);
      });

      it("a missing program is an error with no exit code", async () => {
        const r = await runKept(way, { ...sh(""), command: "no-such-program-ticket-runner", args: [] });
        assert.equal(r.code, null);
        assert.match(r.error ?? "", /ENOENT/);
      });

      it("the call's environment and cwd, and only those, reach the process", async () => {
        const value = "a=b c\nd é ☃";
        const r = await runKept(
          way,
          sh('printf "%s|%s|%s" "$TR_PROBE" "${HOME-unset}" "$(pwd)"', { cwd: "/tmp", env: { PATH: process.env.PATH, TR_PROBE: value } }),
        );
        assert.equal(r.stdout.toString("utf8"), `${value}|unset|/tmp`);
      });

      it("every signal is at its default in the process (none ignored, none blocked), as the spawner's own are not", async () => {
        const r = await runKept(way, { ...sh(""), command: "grep", args: ["-E", "^Sig(Ign|Blk):", "/proc/self/status"] });
        const [blocked, ignored] = [...r.stdout.toString("utf8").matchAll(/:\s*([0-9a-f]+)/g)].map((m) => BigInt(`0x${m[1]}`));
        assert.equal(blocked, 0n, "none blocked");
        // Signals 32 and 33 are glibc's own (no program can set them); its posix_spawn leaves them ignored, and glibc sets them again where it uses them.
        const glibcOwn = (1n << 31n) | (1n << 32n);
        assert.equal((ignored! & ~glibcOwn).toString(16), "0", "none a program could use ignored (Python ignores SIGPIPE and SIGXFSZ)");
      });

      it("the program is looked up in the call's PATH, not the spawner's", async () => {
        const bin = await mkdtemp(path.join(tmpdir(), "tr-call-path-"));
        try {
          await writeFile(path.join(bin, "tr-probe-program"), "#!/bin/sh\nprintf found\n", { mode: 0o755 });
          const r = await runKept(way, { ...sh(""), command: "tr-probe-program", args: [], env: { PATH: `${bin}:${process.env.PATH}` } });
          assert.deepEqual([r.code, r.stdout.toString("utf8")], [0, "found"]);
        } finally {
          await rm(bin, { recursive: true, force: true });
        }
      });

      it("arguments travel as they are: empty, with spaces, newlines and non-ASCII", async () => {
        const args = ["", "two words", "line\nbreak", "ünï ☃", "--"];
        const r = await runKept(way, { ...sh(""), command: "sh", args: ["-c", 'for a in "$@"; do printf "[%s]" "$a"; done', "sh", ...args] });
        assert.equal(r.stdout.toString("utf8"), args.map((a) => `[${a}]`).join(""));
      });
    });
  }

  it("with no python3 on PATH (a pyenv shim is not one), git starts through the Node spawner, and the log says so once", async () => {
    const bin = await mkdtemp(path.join(tmpdir(), "tr-no-python-"));
    try {
      await symlink("/usr/bin/git", path.join(bin, "git"));
      // A shim as pyenv's: a script that would run whatever it finds. It must not be run at all.
      const ran = path.join(bin, "shim-ran");
      await writeFile(path.join(bin, "python3"), `#!/bin/sh\necho ran > ${ran}\nexec /usr/bin/python3 "$@"\n`, { mode: 0o755 });
      const script = `
        const { runGitProcess } = require(${JSON.stringify(path.join(ROOT, "src/adapters/git/git-process.ts"))});
        const { spawnerCounts, letGoOfSpawner } = require(${JSON.stringify(path.join(ROOT, "src/adapters/spawner/spawner.ts"))});
        (async () => {
          const a = await runGitProcess(["--version"], { cwd: process.cwd(), env: process.env, idleMs: 30000 });
          const b = await runGitProcess(["--version"], { cwd: process.cwd(), env: process.env, idleMs: 30000 });
          await letGoOfSpawner();
          const c = spawnerCounts();
          console.log(JSON.stringify({ codes: [a.code, b.code], python: c.py, node: c.spawner }));
        })();`;
      const child = spawn(process.execPath, ["--require", "tsx/cjs", "-e", script], {
        cwd: ROOT,
        env: { ...process.env, PATH: bin },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
      child.stderr.on("data", (b: Buffer) => (err += b.toString("utf8")));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      assert.equal(code, 0, err);
      assert.deepEqual(JSON.parse(out), { codes: [0, 0], python: 0, node: 2 });
      assert.equal(err.match(/TICKET_RUNNER_NO_PYTHON/g)?.length, 1, err);
      assert.throws(() => readFileSync(ran), /ENOENT/, "the shim never ran");
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  describe("the Python program itself", () => {
    const python = findPython(process.env.PATH);

    /** The program started as the client starts it (plus `flags`), its frames out, and all it wrote to stderr. */
    function startProgram(flags: string[]) {
      assert.ok(python, "python3 is on PATH");
      const child = spawn(python, ["-I", "-S", "-c", PY_SPAWNER_SOURCE, ...flags], {
        cwd: "/",
        stdio: ["pipe", "pipe", "pipe"],
        env: { PATH: process.env.PATH },
      });
      const reader = new FrameReader();
      const frames: Frame[] = [];
      let stderr = "";
      const waiters: (() => void)[] = [];
      child.stdout.on("data", (b: Buffer) => {
        frames.push(...reader.push(b));
        for (const w of waiters.splice(0)) w();
      });
      child.stderr.on("data", (b: Buffer) => (stderr += b.toString("utf8")));
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      /** Resolves once `count` frames (the ready one included) have come. */
      const framesBy = (count: number): Promise<Frame[]> =>
        new Promise((resolve) => {
          const check = (): void => (frames.length >= count ? resolve(frames.slice(0, count)) : void waiters.push(check));
          check();
        });
      const send = (id: number, call: KeptCall): void => {
        const env = Object.entries(call.env).map(([k, v]) => `${k}=${v}\0`);
        const payloads = [Buffer.from(call.args.map((a) => `${a}\0`).join("")), Buffer.from(env.join(""))];
        if (call.input) payloads.push(Buffer.from(call.input));
        child.stdin.write(encodeFrame({ id, command: call.command, cwd: call.cwd, idleMs: call.idleMs, input: call.input !== null }, payloads));
      };
      return { child, send, framesBy, exited, stderr: () => stderr };
    }

    for (const flags of [[], ["--no-pidfd"]]) {
      it(`${flags.length ? "with SIGCHLD instead of pidfds" : "with pidfds"}: calls in flight at once, exit codes, the idle kill, stdin; nothing on its stderr`, async () => {
        const p = startProgram(flags);
        const secret = "ghp_not-a-real-token-but-never-shown";
        p.send(1, sh("sleep 0.3; printf one; exit 3", { env: { PATH: process.env.PATH, GH_TOKEN: secret } }));
        p.send(2, sh("exec sleep 30", { idleMs: 200 }));
        p.send(3, sh("cat; printf two >&2", { input: Buffer.from("in") }));
        p.send(4, { ...sh(""), command: "no-such-program-ticket-runner", args: [] });
        const frames = await p.framesBy(5);
        assert.deepEqual(frames[0]!.header, { ready: true, sizes: [] });
        const byId = new Map(frames.slice(1).map((f) => [f.header.id as number, f]));
        const one = byId.get(1)!;
        assert.deepEqual([one.header.code, one.header.signal, one.payloads[0]!.toString()], [3, null, "one"]);
        assert.equal(typeof one.header.cpuMs, "number");
        assert.deepEqual([byId.get(2)!.header.signal, byId.get(2)!.header.idle], ["SIGKILL", true]);
        assert.deepEqual([byId.get(3)!.header.code, byId.get(3)!.payloads.map(String)], [0, ["in", "two"]]);
        assert.deepEqual([byId.get(4)!.header.code, byId.get(4)!.header.error], [null, "spawn no-such-program-ticket-runner ENOENT"]);
        p.child.stdin.end();
        assert.equal(await p.exited, 0, "its stdin's end ends it");
        assert.equal(p.stderr(), "");
      });
    }

    it("a frame it cannot read ends it, and it says nothing", async () => {
      const p = startProgram([]);
      await p.framesBy(1);
      const bad = Buffer.from("{not json");
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bad.length, 0);
      p.child.stdin.write(Buffer.concat([length, bad]));
      assert.notEqual(await p.exited, 0);
      assert.equal(p.stderr(), "");
    });
  });
});
