/**
 * `ticket-runner sandbox [--port 0] [--data <dir>] [--seed demo|none] [--json]`: runs the local
 * GitHub-compatible sandbox in the foreground until SIGTERM or SIGINT, then shuts down cleanly
 * (open connections closed, CI runs stopped, state flushed).
 */
import { Refusal } from "../../core/errors";
import { startSandbox } from "../../sandbox/start";
import type { CliCommand } from "../command";
import { parseArgs } from "../target-options";

const USAGE = `ticket-runner sandbox [--port <n>] [--data <dir>] [--seed demo|none] [--json]

Runs a local GitHub-compatible server (REST, GraphQL at /graphql, git over HTTP) on 127.0.0.1.
  --port <n>     port to listen on (default 0: any free port)
  --data <dir>   keep repositories and state in <dir> across restarts (default: a temp folder, removed on exit)
  --seed demo    create the demo repository demo/shop on first start
  --json         print one JSON line {apiUrl, gitUrl, token, seedsDir} instead of text
Serves until SIGTERM, SIGHUP or Ctrl-C.`;

export const sandboxCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--json"], values: ["--port", "--data", "--seed"] });
    if (args.positionals.length) throw new Refusal("bad-input", `Unexpected argument ${args.positionals[0]}. Usage: ${USAGE.split("\n")[0]}`);
    const portText = args.values.get("--port") ?? "0";
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65535)
      throw new Refusal("bad-input", `--port must be a number from 0 to 65535, not "${portText}". Try: ticket-runner sandbox --port 0`);
    const seed = args.values.get("--seed") ?? "none";
    if (seed !== "demo" && seed !== "none")
      throw new Refusal("bad-input", `--seed must be "demo" or "none", not "${seed}". Try: ticket-runner sandbox --seed demo`);
    const dataDir = args.values.get("--data");

    // Listen for the stop signal before starting, so a SIGTERM during start-up still stops cleanly.
    let signalled: () => void = () => undefined;
    const stopRequested = new Promise<void>((resolve) => (signalled = resolve));
    const onSignal = (): void => signalled();
    // SIGHUP too: a closed terminal must stop the sandbox cleanly, not leave its git processes.
    const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
    for (const s of signals) process.on(s, onSignal);
    let sb;
    try {
      sb = await startSandbox({ port, seed, quiet: true, notes: (line) => io.err(line), ...(dataDir ? { dataDir } : {}) });
    } catch (error) {
      for (const s of signals) process.off(s, onSignal);
      throw error;
    }
    const gitUrl = seed === "demo" ? sb.gitUrl("demo", "shop") : sb.gitUrl("<owner>", "<repo>");
    if (args.flags.has("--json")) {
      io.out(JSON.stringify({ apiUrl: sb.apiUrl, gitUrl, token: sb.adminToken, seedsDir: sb.seedsDir }));
    } else {
      io.out(`Sandbox listening.`);
      io.out(`  API:   ${sb.apiUrl}   (GraphQL: ${sb.apiUrl}/graphql)`);
      io.out(`  git:   ${gitUrl}   (basic auth x-access-token:<token>)`);
      io.out(`  token: ${sb.adminToken}   (sandbox admin; a local sandbox token, not a GitHub one)`);
      io.out(dataDir ? `  data:  ${dataDir}` : `  data:  temporary (use --data <dir> to keep it)`);
      io.out(`  seeds: ${sb.seedsDir}   (the only folder the admin API's fromDir copies from)`);
      io.out(`Stop with Ctrl-C or SIGTERM.`);
    }
    await stopRequested;
    for (const s of signals) process.off(s, onSignal);
    await sb.stop();
    if (!args.flags.has("--json")) io.out("Sandbox stopped.");
    return 0;
  },
};
