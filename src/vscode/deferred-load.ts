import type * as Deferred from "./deferred";
import type { CommandHandler } from "./run-command";

type DeferredModule = typeof Deferred;
let loading: Promise<DeferredModule> | null = null;

/**
 * Loads dist/extension-deferred.js once (ADR 0301): esbuild's plugin (scripts/on-demand-bundles.mjs)
 * leaves this import() to Node. A failed load is not remembered, so the next command tries again.
 */
function loadModule(): Promise<DeferredModule> {
  loading ??= import("./deferred").catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

export async function loadDeferred(): Promise<DeferredModule["deferredBoard"]> {
  return (await loadModule()).deferredBoard;
}

/** A command-table handler that loads the deferred bundle, then runs the handler of that name. */
export function deferred(name: keyof DeferredModule["deferredHandlers"]): CommandHandler {
  return async (services, ...args) => (await loadModule()).deferredHandlers[name](services, ...args);
}
