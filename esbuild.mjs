// Builds the bundles: the VS Code extension (CommonJS, `vscode` external) and the CLI.
// Octokit is ESM-only, so it is bundled into both rather than required at run time.
// The extension is a loader and three bundles, two of them loaded on demand: scripts/on-demand-bundles.mjs.
import * as esbuild from "esbuild";
import { DEFERRED_OUT, RUN_MACHINERY_OUT, onDemandBundles } from "./scripts/on-demand-bundles.mjs";
import { asciiOutput } from "./scripts/ascii-output.mjs";
import { octokitJson } from "./scripts/octokit-json.mjs";

const watch = process.argv.includes("--watch");
const production = process.argv.includes("--production");

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: production ? false : "linked",
  minify: production,
  logLevel: "info",
  legalComments: "none",
};

const builds = [
  // dist/extension.js is the loader (src/vscode/loader.ts): it takes the time, then requires the bundle (ADR 0300).
  { ...common, entryPoints: ["src/vscode/loader.ts"], outfile: "dist/extension.js", external: ["vscode", "./extension-bundle.js"] },
  { ...common, entryPoints: ["src/vscode/extension.ts"], outfile: "dist/extension-bundle.js", external: ["vscode"], plugins: [onDemandBundles, octokitJson] },
  { ...common, entryPoints: ["src/vscode/deferred.ts"], outfile: `dist/${DEFERRED_OUT}`, external: ["vscode"], plugins: [onDemandBundles, octokitJson] },
  { ...common, entryPoints: ["src/app/compose-run.ts"], outfile: `dist/${RUN_MACHINERY_OUT}`, external: ["vscode"], plugins: [octokitJson] },
  // dist/cli.js is the loader (src/cli/loader.ts): it runs dist/cli-bundle.js, the CLI's self-contained bundle, with V8's code cache (ADR 0481).
  { ...common, entryPoints: ["src/cli/loader.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } },
  // ASCII bytes: decoded to a one-byte string at each process's start (scripts/ascii-output.mjs, ADR 0490).
  { ...common, entryPoints: ["src/cli/main.ts"], outfile: "dist/cli-bundle.js", banner: { js: "#!/usr/bin/env node" }, plugins: [asciiOutput, octokitJson] },
  { ...common, entryPoints: ["src/sandbox/demo-agent-main.ts"], outfile: "dist/demo-agent.js", banner: { js: "#!/usr/bin/env node" } },
];

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
