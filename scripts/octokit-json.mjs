// Gives @octokit/request our JSON reader (src/adapters/github/octokit-json.ts, ADR 0508) where it
// imports `json-with-bigint`: the same answers, without the library's second pass over every one on
// Node 20. Only Octokit's import is redirected; the reader itself imports the library as it is.
import { fileURLToPath } from "node:url";

const READER = fileURLToPath(new URL("../src/adapters/github/octokit-json.ts", import.meta.url));

export const octokitJson = {
  name: "octokit-json",
  setup(build) {
    build.onResolve({ filter: /^json-with-bigint$/ }, (args) => (/[\\/]node_modules[\\/]@octokit[\\/]/.test(args.importer) ? { path: READER } : undefined));
  },
};
