/**
 * `ticket-runner release <n>`: puts a ticket you hold back in the queue: lease released,
 * ready-for-agent on, in-progress off, you unassigned last; this Host's run moved aside (kept).
 */
import { existsSync } from "node:fs";
import { GitWorkspace } from "../../adapters/git/git-workspace";
import type { LeftBranchReport } from "../../adapters/git/worktrees";
import { NodeHost } from "../../adapters/node-host";
import type { CliCommand, CliIo } from "../command";
import { wireClaims, type ClaimWiring } from "../claim-wiring";
import { parseArgs, resolveTarget, type Target } from "../target-options";
import { ticketArg } from "./start";

const USAGE = `ticket-runner release <n> [--run-dir <dir>] [--repo owner/name] [--api-url <url>]

Puts ticket <n> back: its lease is marked released, ready-for-agent goes on, in-progress off, and
you are unassigned last. The local run directory moves to superseded/<timestamp>/ (nothing is
deleted). The worktree and branch \`start\` made are kept: it says whether a Run in this clone
starts on them (they hold nothing beyond the base) or not, and the command that removes them. Only your own claim can be released (a live or expired lease of yours, in-progress with
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
    if (report.branch) io.out(await keptNote(n, report.branch, report.worktree, target, w, io));
    return 0;
  },
};

/** The words for what a Run here would do with what `start` left (ADR 0121). */
export function keptWords(branch: string, r: LeftBranchReport): string {
  const what = r.left.worktree ? `the worktree ${r.left.worktree} and the branch ${branch}` : `the branch ${branch}`;
  const remote = r.dropRemote ? `, and the remote's copy with \`${r.dropRemote}\`` : "";
  if (!r.notReusable) {
    return `Kept ${what} (release deletes nothing). They hold nothing beyond the base, so a Run in this clone starts on them. To remove them anyway: \`${r.drop}\`.`;
  }
  return (
    `Kept ${what} (release deletes nothing): ${r.notReusable.why}. A Run in this clone will not start on them: it hands the ticket to a person at setup. ` +
    `Finish or push that work yourself, or, if it is abandoned, remove them before the next Run: \`${r.drop}\`${remote}.`
  );
}

async function keptNote(n: number, branch: string, worktree: string | null, target: Target, w: ClaimWiring, io: CliIo): Promise<string> {
  // The clone is the one the worktree sits in (release may run elsewhere, with --repo).
  const root = (worktree && /^(.*)[\\/]\.worktrees[\\/]ticket-\d+$/.exec(worktree)?.[1]) || target.checkout;
  const fallback = `Kept ${worktree ? `the worktree ${worktree} and ` : ""}the branch ${branch} (release deletes nothing).`;
  if (!root || !existsSync(root)) return fallback;
  try {
    const ws = new GitWorkspace({ root, host: new NodeHost({ env: io.env }), token: w.token, env: io.env });
    const base = target.config.base ?? (await w.tracker.defaultBranch());
    const report = await ws.leftBranch(n, branch, base);
    return report ? keptWords(branch, report) : `The branch ${branch} is no longer in ${root}.`;
  } catch (error) {
    w.log.debug("could not look at the kept branch", { branch, error: String(error) });
    return fallback;
  }
}
