// `npm run bench`: every benchmark in turn. Each prints its own figures and its ratio against a
// baseline measured in the same run; this only sequences them so they never compete for the CPU.
import { spawnSync } from "node:child_process";

const benches = ["sandbox", "claims", "board", "workspace", "agent-stream", "run", "hosts", "vscode"];
const only = process.argv.slice(2);
const chosen = only.length > 0 ? benches.filter((b) => only.includes(b)) : benches;
const failed: string[] = [];

for (const name of chosen) {
  process.stdout.write(`\n=== bench:${name} ===\n`);
  const res = spawnSync("npm", ["run", "--silent", `bench:${name}`], { stdio: "inherit" });
  if (res.status !== 0) failed.push(name);
}

if (failed.length > 0) {
  process.stderr.write(`\nbench: ${failed.join(", ")} did not finish; see their output above.\n`);
  process.exitCode = 1;
}
