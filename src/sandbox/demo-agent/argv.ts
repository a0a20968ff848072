/**
 * The demo agent accepts the argv Ticket Runner gives `claude`:
 *   -p [<prompt>] --output-format stream-json --verbose --permission-mode <m> --max-turns <n>
 *   [--settings <json>] [--resume <session>] [--model <m>] [--json-schema <json>]
 * `--settings` (the Stage's allowed commands) and `--resume` are accepted and not acted on: the demo
 * agent runs only its own scripted git, and every session of it starts from the issue.
 * With no prompt after -p, the prompt is read from stdin (as claude does for long prompts).
 */
export interface DemoArgs {
  prompt: string | null;
  outputFormat: string;
  permissionMode: string;
  maxTurns: number | null;
  model: string | null;
  jsonSchema: unknown;
}

const WITH_VALUE = new Set(["--output-format", "--permission-mode", "--max-turns", "--model", "--json-schema", "--input-format", "--settings", "--resume"]);
const FLAGS = new Set(["-p", "--print", "--verbose"]);

export class ArgvError extends Error {}

export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  const out: DemoArgs = { prompt: null, outputFormat: "text", permissionMode: "default", maxTurns: null, model: null, jsonSchema: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (FLAGS.has(arg)) {
      // The prompt follows -p unless the next word is one of our own options.
      const next = argv[i + 1];
      if ((arg === "-p" || arg === "--print") && next !== undefined && !WITH_VALUE.has(next) && !FLAGS.has(next)) {
        out.prompt = next;
        i += 1;
      }
      continue;
    }
    if (WITH_VALUE.has(arg)) {
      const value = argv[i + 1];
      if (value === undefined) throw new ArgvError(`${arg} needs a value`);
      i += 1;
      if (arg === "--output-format") out.outputFormat = value;
      else if (arg === "--permission-mode") out.permissionMode = value;
      else if (arg === "--model") out.model = value;
      else if (arg === "--max-turns") {
        const n = Number(value);
        if (!Number.isInteger(n) || n <= 0) throw new ArgvError(`--max-turns must be a positive integer, got ${JSON.stringify(value)}`);
        out.maxTurns = n;
      } else if (arg === "--json-schema") {
        try {
          out.jsonSchema = JSON.parse(value);
        } catch {
          throw new ArgvError("--json-schema is not valid JSON");
        }
      }
      continue;
    }
    if (out.prompt === null && !arg.startsWith("--")) {
      out.prompt = arg;
      continue;
    }
    throw new ArgvError(`unknown argument ${JSON.stringify(arg.slice(0, 40))}`);
  }
  if (out.outputFormat !== "stream-json") throw new ArgvError(`only --output-format stream-json is supported, got ${JSON.stringify(out.outputFormat)}`);
  return out;
}
