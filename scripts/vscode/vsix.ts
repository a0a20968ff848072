// Packs the extension as a .vsix with the same vsce flags as `npm run package`, but from the
// current dist/ and into a folder of the caller's choice (tests must not rebuild dist/ under
// other people's feet).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./build-suite";

export const VSCE_FLAGS = ["--no-dependencies", "--no-rewrite-relative-links", "--allow-missing-repository"];

export function packVsix(outFile: string): string {
  if (!existsSync(join(REPO_ROOT, "dist", "extension.js"))) throw new Error("dist/extension.js is missing: run `npm run build` first");
  const vsce = join(REPO_ROOT, "node_modules", ".bin", "vsce");
  const r = spawnSync(vsce, ["package", ...VSCE_FLAGS, "--out", outFile], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 120_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (r.status !== 0 || !existsSync(outFile)) throw new Error(`vsce package failed (status ${r.status}):\n${r.stdout}${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
}
