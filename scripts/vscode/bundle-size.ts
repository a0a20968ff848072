// Prints the production size of dist/extension-bundle.js (what dist/extension.js, the loader, requires at activation; ADR 0300) without writing dist/ (others' tests use it),
// and the biggest inputs, so a heavy import on the activation path shows up. The Run machinery
// (dist/run-machinery.js, loaded at the first Start) is not counted: activation never loads it.
//   npx tsx scripts/vscode/bundle-size.ts
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { REPO_ROOT } from "./build-suite";
import { onDemandBundles } from "../on-demand-bundles.mjs";

async function main(): Promise<void> {
  // Same options as esbuild.mjs --production for the extension bundle.
  const result = await esbuild.build({
    entryPoints: [join(REPO_ROOT, "src", "vscode", "extension.ts")],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    minify: true,
    legalComments: "none",
    external: ["vscode"],
    plugins: [onDemandBundles],
    write: false,
    metafile: true,
    outfile: join(REPO_ROOT, "dist", "extension-bundle.js"),
  });
  const out = result.outputFiles[0]!;
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`dist/extension-bundle.js (production): ${kb(out.contents.length)} (${out.contents.length} bytes), gzip ${kb(gzipSync(out.contents).length)}`);
  const inputs = Object.entries(result.metafile.outputs[Object.keys(result.metafile.outputs)[0]!]!.inputs)
    .map(([file, info]) => [file, info.bytesInOutput] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  for (const [file, bytes] of inputs) console.log(`  ${kb(bytes).padStart(10)}  ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
