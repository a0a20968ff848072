// The extension is several files. dist/extension.js is a loader (ADR 0300) that requires
// dist/extension-bundle.js: what activation needs. Two more are loaded on demand:
// - dist/extension-deferred.js (src/vscode/deferred.ts, ADR 0301): the command handlers and the
//   board's GitHub side, at the first command or the first board refresh;
// - dist/run-machinery.js (src/app/compose-run.ts and all it pulls in: git, agents, the Run's core;
//   docs/adr/0266-run-machinery-on-demand.md), at the first Start.
// A CJS bundle has no code splitting, so these `import()`s are left to Node, next to the importer.
export const RUN_MACHINERY_OUT = "run-machinery.js";
export const DEFERRED_OUT = "extension-deferred.js";

const onDemand = [
  { filter: /\/app\/compose-run$/, out: RUN_MACHINERY_OUT },
  { filter: /^\.\/deferred$/, out: DEFERRED_OUT },
];

export const onDemandBundles = {
  name: "on-demand-bundles",
  setup(build) {
    for (const { filter, out } of onDemand) {
      build.onResolve({ filter }, (args) => (args.kind === "dynamic-import" ? { path: `./${out}`, external: true } : undefined));
    }
  },
};
