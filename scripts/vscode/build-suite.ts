// Compiles the in-host suite for the extension host, which cannot run TypeScript (no tsx there):
// test/vscode/suite/**/{index,*.test}.ts -> out/test/vscode/suite/**/*.js, one CommonJS bundle
// per file, `vscode` and `mocha` left as runtime requires (VS Code provides the first; the second
// resolves from this repository's node_modules).
import * as esbuild from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";

export const REPO_ROOT = join(__dirname, "..", "..");
export const SUITE_SRC = join(REPO_ROOT, "test", "vscode", "suite");
export const SUITE_OUT = join(REPO_ROOT, "out", "test", "vscode", "suite");
export const SUITE_INDEX = join(SUITE_OUT, "index.js");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, ent.name);
    if (ent.isDirectory()) out.push(...sources(path));
    else if (ent.name.endsWith(".test.ts") || path === join(SUITE_SRC, "index.ts")) out.push(path);
  }
  return out;
}

/**
 * A build folder of this run's own, inside the repository (so `mocha` resolves from its
 * node_modules) but apart from other runs: several people run the tests in one work tree at once.
 */
export function privateSuiteOut(): string {
  return join(REPO_ROOT, "out", "test", "vscode", `run-${process.pid}-${Date.now()}`);
}

/** Builds the suite into `outDir` (its index.js is the extensionTestsPath); returns the test file count. */
export async function buildSuite(outDir: string = SUITE_OUT): Promise<number> {
  const entryPoints = sources(SUITE_SRC);
  // A deleted test must not live on as a stale .js file.
  rmSync(outDir, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints,
      outbase: SUITE_SRC,
      outdir: outDir,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      sourcemap: "inline",
      external: ["vscode", "mocha"],
      logLevel: "warning",
    });
  } finally {
    // The build's service process would otherwise outlive it, a leftover for the launcher's check (ADR 0191).
    await esbuild.stop();
  }
  return entryPoints.filter((p) => p.endsWith(".test.ts")).length;
}

if (require.main === module) {
  buildSuite().then(
    (n) => console.log(`built ${n} in-host test file(s) into ${relative(REPO_ROOT, SUITE_OUT)}`),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
