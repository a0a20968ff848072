/**
 * Bundles an entry in memory as esbuild.mjs bundles the extension's (node 20, cjs, `vscode`
 * external, the on-demand bundles split off), for tests that look at what a bundle holds.
 */
import { join } from "node:path";
import * as esbuild from "esbuild";
import { onDemandBundles } from "../../scripts/on-demand-bundles.mjs";

export const ROOT = join(__dirname, "..", "..");

/** The bundle's metafile: its inputs (repository-relative paths) and their imports. */
export async function bundleLikeTheExtension(entry: string, outfile: string): Promise<esbuild.Metafile> {
  const result = await esbuild.build({
    entryPoints: [join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: ["vscode"],
    plugins: [onDemandBundles],
    write: false,
    metafile: true,
    outfile: join(ROOT, "dist", outfile),
    logLevel: "silent",
  });
  return result.metafile;
}
