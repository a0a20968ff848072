/**
 * `ticket-runner hand-back <n>`: a person hands a handed-off Ticket back to the Runs (docs/endings.md,
 * "Handing a Ticket back"): ready-for-human off, ready-for-agent on. Nothing else changes: no
 * assignee, no lease, and the State file stays, so the next Run resumes it with a fresh fix budget.
 * The checks and words live in src/core/claims/hand-back.ts (the extension's Hand Back uses them too).
 */
import { GitWorkspace } from "../../adapters/git/git-workspace";
import { NodeHost } from "../../adapters/node-host";
import { handBackTicket } from "../../core/claims/hand-back";
import type { CliCommand } from "../command";
import { wireClaims } from "../claim-wiring";
import { parseArgs, resolveTarget } from "../target-options";
import { ticketArg } from "./start";

const USAGE = `ticket-runner hand-back <n> [--repo owner/name] [--api-url <url>]

Hands ticket <n> back after a Hand-off: ready-for-human comes off and ready-for-agent goes on, so the
next Run finds it on the Frontier and resumes it from its State file with a fresh fix budget.
Assignees, lease comments and the State file are left as they are. Refused when the issue is closed
or not labelled ready-for-human. Run inside a clone to have the State file named. Exit codes: 0 done,
2 refused, 1 failed.`;

export const handBackCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {});
    const n = ticketArg(args, USAGE, "hand-back");
    const target = resolveTarget(args, io, { command: "hand-back" });
    const w = wireClaims(target, io, "person");
    const checkout = target.checkout;
    // Only to name where the Run resumes; without a clone the words say "its State file".
    const readState = checkout
      ? (ticket: number) => new GitWorkspace({ root: checkout, host: new NodeHost({ env: io.env }), token: w.token, env: io.env }).readState(ticket)
      : undefined;
    const result = await handBackTicket(
      { tracker: w.tracker, labels: target.config.labels, repoName: `${target.repo.owner}/${target.repo.repo}`, readState, log: w.log },
      n,
    );
    if (result.kind === "handed-back") io.out(result.summary);
    return 0;
  },
};
