/**
 * The program of the spawner (ADR 0261, ADR 0350): a small, long-lived Node process that starts
 * the Run's processes on its behalf (git, and the agent's and the Checks' sandboxes). Starting a
 * process from a big Node process costs time in proportion to its memory (libuv forks it); this
 * one stays small, so each process it starts is cheap, and the Run's own event loop never stops for
 * a fork.
 *
 * It is kept as source text and started with `node -e`, so the same code runs from the bundles
 * (dist/cli.js, dist/extension.js) and from the TypeScript sources (tests, benches) with no file to
 * find. Messages (advanced serialization, so Buffers travel as bytes):
 *   out: { ready: true } once, first.
 *   A call whose output is kept ({ id, command, args, cwd, env, input: Uint8Array | null, idleMs }):
 *     out: { id, code, signal, stdout, stderr, error: string | null, idle: boolean, cpuMs }
 *     It ends when its process has exited and its output is read; `idleMs` without output stops it (SIGKILL).
 *   A streamed call ({ id, stream: true, command, args, cwd, env, input, stdinFile?, outlives? }): its
 *   process leads a process group of its own (the Run signals `-pid` itself); its stdin is `input`,
 *   or the file `stdinFile` names (opened here, so the caller may remove it once it has started);
 *   out, in order:
 *     { id, spawned: pid } or { id, error, errno } (it never started; nothing follows),
 *     { id, fd: 1 | 2, data } for each chunk, { id, exit: [code, signal], cpuMs }, { id, close: [code, signal] }.
 *     in: { id, pause: true } / { id, resume: true } (the Run's reader is full / wants more of stdout).
 * `cpuMs` is the CPU (user + system) of the process and everything it waited for, read from this
 * process's reaped-children counter when its exit is seen (Linux; null elsewhere): two processes
 * reaped in the same instant are counted together, on the first.
 * When the channel closes (the Run let it go after its quiet time or at its end, or the Run is
 * gone), the spawner exits: a git it started finishes by itself, as it would had the Run started it;
 * a streamed process group is killed first, as the Run's exit would have killed it, unless its call
 * said `outlives` (the sandbox's `git http-backend`, which has its whole body and finishes: ADR 0190).
 */
export const SPAWNER_SOURCE = String.raw`"use strict";
const { spawn } = require("node:child_process");
const { closeSync, openSync, readFileSync } = require("node:fs");
const groups = new Map();
const outliving = new Set();
function reply(m) {
  if (process.connected) process.send(m);
}
function reapedMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return null;
  }
}
let reaped = reapedMs();
function cpuOfExit() {
  const now = reapedMs();
  const ms = now === null || reaped === null ? null : now - reaped;
  reaped = now;
  return ms;
}
process.on("disconnect", () => {
  for (const [id, child] of groups) {
    if (outliving.has(id)) continue;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
  process.exit(0);
});
// Before any call is read: a spawner that never said this never started a process.
reply({ ready: true });
function streamed(m) {
  let child;
  let file = null;
  try {
    if (m.stdinFile) file = openSync(m.stdinFile, "r");
    const stdin = file !== null ? file : m.input === null ? "ignore" : "pipe";
    child = spawn(m.command, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: [stdin, "pipe", "pipe"] });
  } catch (e) {
    reply({ id: m.id, error: String((e && e.message) || e), errno: (e && e.code) || null });
    return;
  } finally {
    // The process has its own copy of the descriptor.
    if (file !== null) closeSync(file);
  }
  child.on("error", (e) => {
    if (child.pid === undefined) reply({ id: m.id, error: String(e.message), errno: e.code || null });
  });
  if (child.pid === undefined) return;
  groups.set(m.id, child);
  if (m.outlives) outliving.add(m.id);
  reply({ id: m.id, spawned: child.pid });
  child.stdout.on("data", (data) => reply({ id: m.id, fd: 1, data }));
  child.stderr.on("data", (data) => reply({ id: m.id, fd: 2, data }));
  child.on("exit", (code, signal) => reply({ id: m.id, exit: [code, signal], cpuMs: cpuOfExit() }));
  child.on("close", (code, signal) => {
    groups.delete(m.id);
    outliving.delete(m.id);
    reply({ id: m.id, close: [code, signal] });
  });
  if (child.stdin) {
    // The process may exit before it reads all of its input: not an error of ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(Buffer.from(m.input.buffer, m.input.byteOffset, m.input.byteLength));
  }
}
function kept(m) {
  const out = [];
  const err = [];
  let idle = false;
  let spawnError = null;
  let cpuMs = null;
  let child;
  try {
    child = spawn(m.command, m.args, { cwd: m.cwd, env: m.env, stdio: [m.input === null ? "ignore" : "pipe", "pipe", "pipe"] });
  } catch (e) {
    reply({ id: m.id, code: null, signal: null, stdout: new Uint8Array(0), stderr: new Uint8Array(0), error: String((e && e.message) || e), idle: false, cpuMs: null });
    return;
  }
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
    reply({ id: m.id, code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), error: spawnError, idle, cpuMs });
  };
  child.on("error", (e) => {
    spawnError = String(e.message);
    // A process that never started (a cwd that is gone) may not report a close.
    if (child.pid === undefined) finish(null, null);
  });
  child.on("exit", () => (cpuMs = cpuOfExit()));
  child.on("close", (code, signal) => finish(code, signal));
  if (child.stdin) {
    // git may exit before it reads all of its input (a bad argument): not an error of ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(Buffer.from(m.input.buffer, m.input.byteOffset, m.input.byteLength));
  }
}
process.on("message", (m) => {
  if (m.pause || m.resume) {
    const child = groups.get(m.id);
    if (child) m.pause ? child.stdout.pause() : child.stdout.resume();
    return;
  }
  if (m.stream) streamed(m);
  else kept(m);
});
`;
