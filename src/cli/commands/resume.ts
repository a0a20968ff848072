/**
 * `ticket-runner resume <n>`: re-enter a run you hold from this Host. Online: the local claim is
 * taken again, the same lease rewritten in place and read back (a stale lease may have been taken
 * over meanwhile), and the worktree found or rebuilt from the branch. `--offline`: no network call
 * at all, whatever the run was started with: it reads the run directory and prints where things are.
 */
import { existsSync } from "node:fs";
import { GitWorkspace } from "../../adapters/git/git-workspace";
import { FsRunRoot } from "../../adapters/fs-run-root";
import { NodeHost } from "../../adapters/node-host";
import { Refusal } from "../../core/errors";
import type { CliCommand, CliIo } from "../command";
import { wireClaims } from "../claim-wiring";
import { parseArgs, resolveTarget, type ParsedArgs } from "../target-options";
import { type Target } from "../../app/target";
import { cutLaneOnline, recordLane, ticketArg } from "./start";

const USAGE = `ticket-runner resume <n> [--offline] [--run-dir <dir>] [--base <branch>] [--repo owner/name] [--api-url <url>]

Re-enters ticket <n>, which you hold from this Host: takes the local claim for this session,
renews the lease in place, and finds or rebuilds the worktree on the ticket's branch.
  --offline   no network call at all: shows the run directory and worktree from disk
Exit codes: 0 done, 2 refused (the message says why and what next), 1 failed.`;

async function resumeOffline(n: number, args: ParsedArgs, target: Target, io: CliIo): Promise<number> {
  const root = new FsRunRoot(target.runRoot);
  const dir = args.values.get("--run-dir") ?? root.dirFor(target.repo, n);
  const read = await root.read(dir);
  if (read.kind === "none")
    throw new Refusal("not-ready", `No run of #${n} on this Host at ${dir}. Start it: ticket-runner start ${n}`, {
      path: dir,
      next: `ticket-runner start ${n}`,
    });
  if (read.kind === "invalid")
    throw new Refusal(
      "run-dir-mismatch",
      `${read.reason}. Nothing was changed. Look at ${dir}/run.json; to start again with its files kept under ${dir}/superseded/: \`ticket-runner start ${n} --take-over\`.`,
      { path: dir, next: `ticket-runner start ${n} --take-over` },
    );
  if (read.run.issue !== n)
    throw new Refusal(
      "run-dir-mismatch",
      `${dir}/run.json belongs to ${read.run.repo}#${read.run.issue}, not #${n}. Resume that one: \`ticket-runner resume ${read.run.issue} --run-dir ${dir} --offline\`.`,
      { path: dir, next: `ticket-runner resume ${read.run.issue} --run-dir ${dir} --offline` },
    );
  io.out(`Run directory: ${dir} (offline: GitHub was not asked whether the lease still holds)`);
  const wt = read.run.worktree;
  io.out(
    wt
      ? `Worktree: ${wt}${existsSync(wt) ? "" : " (missing: resume online to rebuild it)"} (branch ${read.run.branch ?? "?"})`
      : "No worktree recorded yet: resume online to make one.",
  );
  return 0;
}

export const resumeCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--offline"], values: ["--run-dir", "--base"] });
    const n = ticketArg(args, USAGE, "resume");
    const target = resolveTarget(args, io, { command: "resume" });
    // The network promise, kept at the call site.
    if (args.flags.has("--offline")) return resumeOffline(n, args, target, io);

    const w = wireClaims(target, io, "person");
    const ws = target.checkout ? new GitWorkspace({ root: target.checkout, host: new NodeHost({ env: io.env }), token: w.token, env: io.env }) : null;
    // The base first: a base that is nowhere is refused before the lease is rewritten.
    const base = ws ? (args.values.get("--base") ?? target.config.base ?? (await w.tracker.defaultBranch())) : null;
    if (ws && base) await ws.fetchBase(base);
    const won = await w.gate.resume(n, { runDir: args.values.get("--run-dir") });
    io.out(`Resumed ${target.repo.owner}/${target.repo.repo}#${n}. Lease: ${won.claim.commentUrl}`);
    io.out(`Run directory: ${won.claim.runDir}`);
    if (!ws || !base) return 0;
    const run = await w.runRoot.read(won.claim.runDir);
    const branch = run.kind === "ok" && run.run.branch ? run.run.branch : ws.branchFor(n, won.issue.title);
    const resumed = await ws.resumeLane(n, branch, base);
    if (resumed.lane && resumed.detail) io.out(resumed.detail);
    const lane = resumed.lane ?? (await cutLaneOnline(ws, n, won.issue.title, base, io));
    await recordLane(w.runRoot, won.claim.runDir, run, lane, io);
    return 0;
  },
};
