/**
 * dist/cli.js, the `ticket-runner` command (ADR 0481): runs the CLI's bundle (dist/cli-bundle.js,
 * self-contained, the file `init --actions` copies: ADR 0282) with V8's code cache, so a process
 * does not compile afresh what the last one did. Without a usable cache the bundle is compiled as
 * Node would, and the Run writes one at its first Lane (src/cli/code-cache.ts).
 */
import { join } from "node:path";
import { CLI_BUNDLE_FILE } from "../app/cli-bundle-file";
import { runWithCodeCache } from "./code-cache";
import { cliV8Tiers } from "./wasm-tier";

// V8 refuses a cache made under other flags: the bundle's own flags (ADRs 0475, 0493) are set before it is compiled.
cliV8Tiers();
runWithCodeCache(join(__dirname, CLI_BUNDLE_FILE), process.env, module);
