/**
 * `ticket-runner release <n>`: puts a ticket you hold back in the queue: lease released,
 * ready-for-agent on, in-progress off, you unassigned last; this Host's run moved aside (kept).
 */
import { keptBranchNote } from "../../adapters/git/kept-branch";
import { NodeHost } from "../../adapters/node-host";
import type { CliCommand, CliIo } from "../command";
import { wireClaims, type ClaimWiring } from "../claim-wiring";
import { parseArgs, resolveTarget } from "../target-options";
import { type Target } from "../../app/target";
import { ticketArg } from "./start";

const USAGE = `ticket-runner release <n> [--run-dir <dir>] [--repo owner/name] [--api-url <url>]

Puts ticket <n> back: its lease is marked released, ready-for-agent goes on, in-progress off, and
you are unassigned last. The local run directory moves to superseded/<timestamp>/ (nothing is
deleted). The worktree and branch \`start\` made are kept: it says whether a Run in this clone
starts on them (they hold nothing beyond the base) or not, and the command that removes them. Only your own claim can be released (a live or expired lease of yours, in-progress with
you assigned and no lease, or an --offline start): a ticket you do not hold is refused, and nothing
changes. Exit codes: 0 done, 2 refused, 1 failed.`;

export const releaseCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { values: ["--run-dir"] });
    const n = ticketArg(args, USAGE, "release");
    const target = resolveTarget(args, io, { command: "release" });
    const w = wireClaims(target, io, "person");
    const report = await w.gate.releaseByHand(n, { runDir: args.values.get("--run-dir") });
    io.out(report.summary);
    if (report.branch) io.out(await keptNote(n, report.branch, report.worktree, target, w, io));
    return 0;
  },
};

async function keptNote(n: number, branch: string, worktree: string | null, target: Target, w: ClaimWiring, io: CliIo): Promise<string> {
  const note = await keptBranchNote({
    ticket: n,
    branch,
    worktree,
    checkout: target.checkout,
    base: async () => target.config.base ?? (await w.tracker.defaultBranch()),
    host: new NodeHost({ env: io.env }),
    token: w.token,
    env: io.env,
    log: w.log,
  });
  return note.text;
}
