// The extension is two files (docs/adr/0266-run-machinery-on-demand.md): dist/extension.js, what
// activation and the board need, and dist/run-machinery.js, the Run (src/app/compose-run.ts and all
// it pulls in: git, agents, the Run's core), loaded at the first Start. A CJS bundle has no code
// splitting, so the extension's `import()` of compose-run is left to Node, next to extension.js.
export const RUN_MACHINERY_OUT = "run-machinery.js";

export const runMachineryOnDemand = {
  name: "run-machinery-on-demand",
  setup(build) {
    build.onResolve({ filter: /\/app\/compose-run$/ }, (args) =>
      args.kind === "dynamic-import" ? { path: `./${RUN_MACHINERY_OUT}`, external: true } : undefined);
  },
};
