/**
 * `ticket-runner claim <n>`: a person's claim, through the same protocol as every other claim. The
 * lease is held by a person, so no machine ever treats it as stale. No worktree is cut: that is
 * `ticket-runner resume <n>` (or `start`) when the work begins.
 */
import type { CliCommand } from "../command";
import { wireClaims } from "../claim-wiring";
import { parseArgs, resolveTarget } from "../target-options";
import { ticketArg } from "./start";

const USAGE = `ticket-runner claim <n> [--take-over] [--run-dir <dir>] [--repo owner/name] [--api-url <url>]

Claims ticket <n> for you, a person: in-progress on, ready-for-agent off, you assigned, and a lease
comment that never goes stale. Release it with \`ticket-runner release <n>\`; start work on it with
\`ticket-runner resume <n>\`. Exit codes: 0 claimed, 2 refused, 1 failed.`;

export const claimCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--take-over"], values: ["--run-dir"] });
    const n = ticketArg(args, USAGE, "claim");
    const target = resolveTarget(args, io, { command: "claim" });
    const w = wireClaims(target, io, "person");
    const won = await w.gate.take(n, { takeOver: args.flags.has("--take-over"), runDir: args.values.get("--run-dir") });
    io.out(`Claimed ${target.repo.owner}/${target.repo.repo}#${n} for ${won.viewer} (a person's claim: it does not expire).`);
    io.out(`Lease: ${won.claim.commentUrl}`);
    io.out(`Run directory: ${won.claim.runDir}`);
    if (won.archived) io.out(`The displaced local run was moved to ${won.archived}`);
    if (won.setAside) io.out(won.setAside.note);
    io.out(`Start work on it: ticket-runner resume ${n}    Put it back: ticket-runner release ${n}`);
    return 0;
  },
};
