/**
 * The CLI's self-contained bundle, beside dist/cli.js (the loader that runs it with V8's code cache,
 * ADR 0481): the file `init --actions` and Prepare Repository copy into a Target (ADR 0282).
 * esbuild.mjs names the same file.
 */
export const CLI_BUNDLE_FILE = "cli-bundle.js";
