// `npm run bench`: every benchmark in turn. Each prints its own figures and its ratio against a
// baseline measured in the same run, and exits 1 when it misses a goal; this only sequences them so
// they never compete for the CPU, prints the machine's load beside each, and exits 1 when any missed.
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { machineSpeedLine } from "./support/machine-speed";

const benches = ["sandbox", "claims", "board", "workspace", "agent-stream", "run", "hosts", "actions", "vscode"];
const only = process.argv.slice(2);
const chosen = only.length > 0 ? benches.filter((b) => only.includes(b)) : benches;
const failed: string[] = [];

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

for (const name of chosen) {
  process.stdout.write(`\n=== bench:${name} (load ${load()}; ${machineSpeedLine()}) ===\n`);
  const res = spawnSync("npm", ["run", "--silent", `bench:${name}`], { stdio: "inherit" });
  process.stdout.write(`=== bench:${name}: ${res.status === 0 ? "goals met" : "MISSED a goal or failed"} (load ${load()}) ===\n`);
  if (res.status !== 0) failed.push(name);
}

if (failed.length > 0) {
  process.stderr.write(`\nbench: ${failed.join(", ")} missed a goal or failed; see their output above.\n`);
  process.exitCode = 1;
}
