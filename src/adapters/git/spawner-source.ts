/**
 * The program of the git spawner (ADR 0261): a small, long-lived Node process that starts the
 * Run's git commands on its behalf. Starting a process from a big Node process costs time in
 * proportion to its memory (libuv forks it); this one stays small, so each git it starts is cheap,
 * and the Run's own event loop never stops for a fork.
 *
 * It is kept as source text and started with `node -e`, so the same code runs from the bundles
 * (dist/cli.js, dist/extension.js) and from the TypeScript sources (tests, benches) with no file to
 * find. Messages (advanced serialization, so Buffers travel as bytes):
 *   in:  { id, command, args, cwd, env, input: Uint8Array | null, idleMs }
 *   out: { ready: true } once, first; then per call { id, code, signal, stdout: Uint8Array, stderr: Uint8Array, error: string | null, idle: boolean }
 * A call ends when its process has exited and its output is read; `idleMs` without output stops it
 * (SIGKILL). When the channel closes (the Run let it go after its quiet time or at its end, or the Run is gone),
 * the spawner exits; a git it started finishes by itself, as it would had the Run started it.
 */
export const SPAWNER_SOURCE = String.raw`"use strict";
const { spawn } = require("node:child_process");
const running = new Map();
function reply(m) {
  if (process.connected) process.send(m);
}
process.on("disconnect", () => process.exit(0));
// Before any call is read: a spawner that never said this never started a git.
reply({ ready: true });
process.on("message", (m) => {
  const out = [];
  const err = [];
  let idle = false;
  let spawnError = null;
  let child;
  try {
    child = spawn(m.command, m.args, { cwd: m.cwd, env: m.env, stdio: [m.input === null ? "ignore" : "pipe", "pipe", "pipe"] });
  } catch (e) {
    reply({ id: m.id, code: null, signal: null, stdout: new Uint8Array(0), stderr: new Uint8Array(0), error: String((e && e.message) || e), idle: false });
    return;
  }
  running.set(m.id, child);
  let timer = null;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      child.kill("SIGKILL");
    }, m.idleMs);
  };
  arm();
  child.stdout.on("data", (d) => {
    out.push(d);
    arm();
  });
  child.stderr.on("data", (d) => {
    err.push(d);
    arm();
  });
  let done = false;
  const finish = (code, signal) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    running.delete(m.id);
    reply({ id: m.id, code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), error: spawnError, idle });
  };
  child.on("error", (e) => {
    spawnError = String(e.message);
    // A process that never started (a cwd that is gone) may not report a close.
    if (child.pid === undefined) finish(null, null);
  });
  child.on("close", (code, signal) => finish(code, signal));
  if (child.stdin) {
    // git may exit before it reads all of its input (a bad argument): not an error of ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(Buffer.from(m.input.buffer, m.input.byteOffset, m.input.byteLength));
  }
});
`;
