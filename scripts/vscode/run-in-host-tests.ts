// npm run test:vscode (part 1): the in-host mocha suite inside code-server's extension host.
//   tsx scripts/vscode/run-in-host-tests.ts [--workspace DIR] [--env KEY=VALUE]... [--grep PATTERN]
//                                           [--timeout SECONDS] [--setup MODULE]
// --setup MODULE: a module exporting `setup(): Promise<{ env?, workspace?, teardown? }>`, run before
// code-server starts (e.g. to start a sandbox and hand its URL and token to the extension host).
import { resolve } from "node:path";
import { runInHostTests, printResults, type InHostOptions } from "./in-host";
import { runLauncher } from "./leftover-guard";

export interface InHostSetup {
  env?: Record<string, string>;
  workspace?: string;
  /** Open the workspace with Workspace Trust on (Restricted Mode). */
  workspaceTrust?: boolean;
  teardown?: () => Promise<void>;
}

interface Args extends InHostOptions {
  setup?: string;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { env: {} };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    i++;
    if (flag === "--workspace") args.workspace = resolve(value);
    else if (flag === "--grep") args.grep = value;
    else if (flag === "--timeout") args.timeoutMs = Number(value) * 1000;
    else if (flag === "--setup") args.setup = resolve(value);
    else if (flag === "--env") {
      const eq = value.indexOf("=");
      if (eq < 1) throw new Error(`--env wants KEY=VALUE, got "${value}"`);
      args.env![value.slice(0, eq)] = value.slice(eq + 1);
    } else throw new Error(`unknown argument ${flag}`);
  }
  return args;
}

async function main(): Promise<number> {
  const started = Date.now();
  const args = parseArgs(process.argv.slice(2));
  let teardown: (() => Promise<void>) | undefined;
  try {
    if (args.setup) {
      const mod = (await import(args.setup)) as { setup: () => Promise<InHostSetup> };
      const s = await mod.setup();
      teardown = s.teardown;
      args.env = { ...args.env, ...s.env };
      args.workspace ??= s.workspace;
      if (s.workspaceTrust) args.workspaceTrust = true;
    }
    const { results, ok } = await runInHostTests(args);
    printResults(results);
    console.log(`in-host: ${ok ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return ok ? 0 : 1;
  } finally {
    await teardown?.();
  }
}

void runLauncher("in-host", main);
