/**
 * `ticket-runner release <n>`: puts a ticket you hold back in the queue: lease released,
 * ready-for-agent on, in-progress off, you unassigned last; this Host's run moved aside (kept).
 */
import type { CliCommand } from "../command";
import { wireClaims } from "../claim-wiring";
import { parseArgs, resolveTarget } from "../target-options";
import { ticketArg } from "./start";

const USAGE = `ticket-runner release <n> [--run-dir <dir>] [--repo owner/name] [--api-url <url>]

Puts ticket <n> back: its lease is marked released, ready-for-agent goes on, in-progress off, and
you are unassigned last. The local run directory moves to superseded/<timestamp>/ (nothing is
deleted). Only your own claim can be released (a live or expired lease of yours, in-progress with
you assigned and no lease, or an --offline start): a ticket you do not hold is refused, and nothing
changes. Exit codes: 0 done, 2 refused, 1 failed.`;

export const releaseCommand: CliCommand = {
  name: "release",
  summary: "put a ticket you hold back in the queue",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { values: ["--run-dir"] });
    const n = ticketArg(args, USAGE);
    const target = resolveTarget(args, io, { command: "release" });
    const w = wireClaims(target, io, "person");
    const report = await w.gate.releaseByHand(n, { runDir: args.values.get("--run-dir") });
    io.out(report.summary);
    return 0;
  },
};
