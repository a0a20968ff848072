import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { ROOT, bundleLikeTheExtension } from "../../support/extension-bundle";

/** What the extension host loads, as esbuild.mjs bundles it: activation, the deferred commands, the Run. */
const ENTRIES = ["src/vscode/extension.ts", "src/vscode/deferred.ts", "src/app/compose-run.ts"];

const SYNC_CHILD = /\b(execFileSync|spawnSync|execSync)\b/;

// A synchronous child process in the extension host stops its event loop (every extension's, and
// the workbench's commands) until the child exits (ADR 0460). Structure only; bench:vscode times it.
describe("vscode: what the extension host loads", function () {
  this.timeout(60_000);

  it("starts no child process synchronously", async () => {
    const found: string[] = [];
    try {
      for (const entry of ENTRIES) {
        const metafile = await bundleLikeTheExtension(entry, "no-sync-check.js");
        for (const input of Object.keys(metafile.inputs)) {
          if (SYNC_CHILD.test(readFileSync(join(ROOT, input), "utf8"))) found.push(`${entry}: ${input}`);
        }
      }
    } finally {
      await esbuild.stop();
    }
    assert.deepEqual([...new Set(found)], []);
  });
});
