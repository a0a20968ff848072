// `npm run demo [-- --headless] [-- --fresh] ...`: from a fresh clone to the running demo.
// Plain Node with no dependencies, because on a fresh clone there are none yet:
//   1. installs the dependencies with `npm ci` when node_modules is missing (never otherwise:
//      npm ci deletes node_modules first);
//   2. builds dist/ (esbuild);
//   3. runs `node dist/cli.js demo <args>`, which installs code-server into its cache when the
//      VS Code demo needs it, and passes its exit code on.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function step(what, command, args) {
  process.stderr.write(`demo: ${what}\n`);
  const r = spawnSync(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) {
    process.stderr.write(`demo: ${what} failed (exit ${r.status ?? r.signal}). Fix the error above, then run \`npm run demo\` again.\n`);
    process.exit(r.status ?? 1);
  }
}

if (!existsSync(join(root, "node_modules", ".package-lock.json"))) {
  step("installing the dependencies (npm ci, once)", npm, ["ci", "--no-audit", "--no-fund"]);
}
step("building dist/", process.execPath, [join(root, "esbuild.mjs")]);

const child = spawn(process.execPath, [join(root, "dist", "cli.js"), "demo", ...process.argv.slice(2)], { cwd: process.cwd(), stdio: "inherit" });
// The demo handles Ctrl+C itself (it reaches it from the terminal, and from npm when npm forwards
// it). Pass signals on, and stay alive until it has finished stopping what it started.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGINT" ? 130 : 1)));
