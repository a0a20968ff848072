/**
 * dist/cli.js, the `ticket-runner` command (ADR 0481): runs the CLI's bundle (dist/cli-bundle.js,
 * self-contained, the file `init --actions` copies: ADR 0282) with V8's code cache, so a process
 * does not compile afresh what the last one did. Without a usable cache the bundle is compiled as
 * Node would, and the Run writes one at its first Lane (src/cli/code-cache.ts).
 */
import { join } from "node:path";
import { CLI_BUNDLE_FILE } from "../app/cli-bundle-file";
import { runWithCodeCache } from "./code-cache";
import { liftoffOnly } from "./wasm-tier";

// V8 refuses a cache made under other flags: the bundle's own flag (ADR 0475) is set before it is compiled.
liftoffOnly();
runWithCodeCache(join(__dirname, CLI_BUNDLE_FILE), process.env, module);
