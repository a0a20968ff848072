import * as assert from "node:assert/strict";
import * as esbuild from "esbuild";
import { bundleLikeTheExtension } from "../../support/extension-bundle";

// What activation loads (dist/extension-bundle.js, ADR 0300/0301), built in memory as esbuild.mjs
// builds it: the heavy modules stay in the deferred bundle and the Run machinery. Structure only;
// bench:vscode measures the time.
describe("vscode: the activation bundle", function () {
  this.timeout(60_000);
  let inputs: string[] = [];
  let external: string[] = [];

  before(async () => {
    const metafile = await bundleLikeTheExtension("src/vscode/extension.ts", "extension-bundle.js");
    inputs = Object.keys(metafile.inputs);
    await esbuild.stop();
    external = Object.values(metafile.inputs).flatMap((i) => i.imports.filter((imp) => imp.external).map((imp) => imp.path));
  });

  it("holds no Octokit, secretlint, zod or bottleneck", () => {
    const heavy = inputs.filter((f) => /node_modules\/(@octokit|@secretlint|zod|bottleneck)\//.test(f));
    assert.deepEqual(heavy, []);
  });

  it("holds none of the git adapters, the claims core, the GitHub adapters or the config loader", () => {
    const heavy = inputs.filter((f) => /^src\/(adapters\/git\/(?!remote-urls)|core\/claims\/(?!run-root-path)|adapters\/github\/|app\/config-load)/.test(f));
    assert.deepEqual(heavy, []);
  });

  it("reaches the command handlers (and through them the Run) only through the deferred bundle", () => {
    const local = [...new Set(external.filter((p) => p.startsWith(".")))];
    assert.deepEqual(local, ["./extension-deferred.js"]);
  });
});
