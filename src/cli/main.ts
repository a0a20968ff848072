import type { CliIo } from "./command";
import { commandTable } from "./command-table";
import { isRefusal } from "../core/errors";
import { redactSecrets } from "../core/redact";
import { refusalText } from "./refusal-text";
import { sanitizeLines } from "../core/board/sanitize";
import { cliV8Tiers } from "./wasm-tier";

function helpText(): string {
  const rows = commandTable.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
  return ["ticket-runner <command> [options]", "", "Commands:", ...rows, "", "Run `ticket-runner <command> --help` for a command's options."].join("\n");
}

export async function main(argv: string[], given: CliIo): Promise<number> {
  // Whatever a command prints may quote GitHub or an agent: no escape sequence or bidi reaches the terminal.
  const io: CliIo = { ...given, out: (line) => given.out(sanitizeLines(line)), err: (line) => given.err(sanitizeLines(line)) };
  // An agent Stage must never drive the orchestrator that runs it.
  if (io.env.TICKET_RUNNER_STAGE) {
    io.err(
      redactSecrets(
        `ticket-runner refuses to run inside an agent Stage (TICKET_RUNNER_STAGE=${io.env.TICKET_RUNNER_STAGE}). Run \`ticket-runner ${argv[0] ?? "help"}\` from your own terminal instead.`,
        io.env,
      ),
    );
    return 2;
  }
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    io.out(helpText());
    return name ? 0 : 2;
  }
  // What people type for a version, as most tools take it.
  const entry = commandTable.find((c) => c.name === (name === "--version" || name === "-v" ? "version" : name));
  if (!entry) {
    io.err(redactSecrets(`Unknown command "${name}". Run \`ticket-runner help\` for the list.`, io.env));
    return 2;
  }
  try {
    // Only the command asked for is evaluated (ADR 0440).
    const command = entry.load();
    if (rest.includes("--help") || rest.includes("-h")) {
      io.out(command.usage);
      return 0;
    }
    return await command.run(rest, io);
  } catch (error) {
    if (isRefusal(error)) {
      io.err(redactSecrets(refusalText(error), io.env));
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(`ticket-runner ${name} failed: ${redactSecrets(message, io.env)}`);
    return 1;
  }
}

if (require.main === module) {
  // Before any request: fetch's HTTP parser is WebAssembly, and its second compile is the cost (ADR 0475); the bundle's JavaScript stays on Sparkplug (ADR 0493).
  cliV8Tiers();
  const io: CliIo = {
    out: (line) => process.stdout.write(line + "\n"),
    err: (line) => process.stderr.write(line + "\n"),
    env: process.env,
    cwd: process.cwd(),
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`ticket-runner: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
