/**
 * `ticket-runner start <n>`: a person's start. The whole claim protocol (docs/claims.md), then the
 * base fetched with a forced refspec and the worktree `.worktrees/ticket-<n>` cut on
 * `agent/<n>-<slug>`. Prints the run directory and the worktree.
 */
import { recallTitle, rememberTitles, titlesFile } from "../ticket-titles";
import { GitWorkspace } from "../../adapters/git/git-workspace";
import { FsRunRoot } from "../../adapters/fs-run-root";
import { NodeHost } from "../../adapters/node-host";
import { parseTicketInput } from "../../core/claims/marker";
import { badTicket, claimedLocally } from "../../core/claims/refusals";
import { Refusal } from "../../core/errors";
import type { RunJson } from "../../core/schemas/run-json";
import type { CliCommand, CliIo } from "../command";
import { systemClock, wireClaims } from "../claim-wiring";
import { prepareLane } from "../../adapters/git/start-lane";
import { parseArgs, resolveTarget, type ParsedArgs } from "../target-options";
import { type Target } from "../../app/target";
import type { Lane } from "../../ports/workspace";
import type { RunJsonRead, RunRoot } from "../../ports/run-root";

const USAGE = `ticket-runner start <n> [--take-over] [--offline] [--run-dir <dir>] [--base <branch>]
                       [--fresh-branch] [--delete-branch-force] [--repo owner/name] [--api-url <url>]

Claims ticket <n> (read every lease, refuse a live claim held elsewhere, take the local claim,
write the board claim and the lease, settle, read back: the earliest claim wins), then fetches the
base and cuts the worktree .worktrees/ticket-<n> on agent/<n>-<slug>.

  --take-over            take a live claim held by someone else (read its lease comment first);
                         the displaced local run moves to <run dir>/superseded/<timestamp>/
  --offline              no network call at all: local claim only, worktree from the last fetch
  --run-dir <dir>        use this run directory instead of <run root>/<owner>__<repo>/issue-<n>/
  --base <branch>        the base branch (default: "base" in ticket-runner.json, else the default branch)
  --fresh-branch         with an old agent/<n>-* branch here: delete it (git branch -d) and start fresh
  --delete-branch-force  with --fresh-branch: git branch -D even with unmerged commits (says how many)

Token: TICKET_RUNNER_TOKEN, GH_TOKEN or GITHUB_TOKEN. Run root: TICKET_RUNNER_RUN_ROOT or
~/.ticket-runner/runs. Exit codes: 0 started, 2 refused (the message says the next command), 1 failed.`;

const FLAGS = ["--take-over", "--offline", "--fresh-branch", "--delete-branch-force"];
const VALUES = ["--run-dir", "--base"];

/** The one ticket number a command takes; `command` is named in the hints, so they give back the command typed. */
export function ticketArg(args: ParsedArgs, usage: string, command: string): number {
  const text = args.positionals[0];
  if (!text) throw new Refusal("bad-input", `Which ticket? ${usage.split("\n")[0]}`);
  if (args.positionals.length > 1)
    throw new Refusal("bad-input", `One ticket at a time: got ${args.positionals.join(" ")}. The first: \`ticket-runner ${command} ${args.positionals[0]}\`.`, {
      next: `ticket-runner ${command} ${args.positionals[0]}`,
    });
  const n = parseTicketInput(text);
  if (n === null) throw badTicket(text, command);
  return n;
}

function workspace(target: Target, io: CliIo, token: string | null): GitWorkspace {
  if (!target.checkout)
    throw new Refusal(
      "not-a-target",
      "start cuts a worktree, so run it inside a clone of the Target: `git clone <url> && cd <clone>`, then `ticket-runner start <n>` there.",
      { next: "git clone <url> && cd <clone>" },
    );
  return new GitWorkspace({ root: target.checkout, host: new NodeHost({ env: io.env }), token: token ?? undefined, env: io.env });
}

/** Online, after the claim is won: the worktree cut on the ticket's branch from the base fetched before the claim. */
export function cutLaneOnline(
  ws: GitWorkspace,
  ticket: number,
  title: string,
  base: string,
  io: CliIo,
  old: { freshBranch: boolean; forceDelete: boolean } = { freshBranch: false, forceDelete: false },
): Promise<Lane> {
  return prepareLane({ ws, ticket, title, base, offline: false, fetched: true, ...old, say: io.out });
}

/** The last step of every start and resume: the worktree recorded in run.json (when it reads as a run) and printed. */
export async function recordLane(runRoot: RunRoot, runDir: string, run: RunJsonRead, lane: Lane, io: CliIo): Promise<void> {
  if (run.kind === "ok") await runRoot.update(runDir, { ...run.run, worktree: lane.path, branch: lane.branch });
  io.out(`Worktree: ${lane.path} (branch ${lane.branch})`);
}

/** --offline: the local claim and a worktree from the last fetch. No Tracker is even built. */
async function startOffline(n: number, args: ParsedArgs, target: Target, io: CliIo): Promise<number> {
  if (args.flags.has("--take-over"))
    throw new Refusal(
      "bad-input",
      `--take-over needs GitHub (the displaced lease is marked there); run it without --offline: \`ticket-runner start ${n} --take-over\`.`,
      { next: `ticket-runner start ${n} --take-over` },
    );
  const root = new FsRunRoot(target.runRoot);
  const dir = args.values.get("--run-dir") ?? root.dirFor(target.repo, n);
  const host = new NodeHost({ env: io.env });
  const run: RunJson = {
    version: 1,
    repo: `${target.repo.owner}/${target.repo.repo}`,
    issue: n,
    host: host.identity(),
    session: `offline-${process.pid}-${Date.now()}`,
    run: `cli-offline-${process.pid}`,
    pid: process.pid,
    startedAt: systemClock.now().toISOString(),
    holder: "person",
    commentId: null,
    worktree: null,
    branch: null,
    offline: true,
  };
  const created = await root.create(dir, run);
  if (created.kind === "exists") throw claimedLocally(run.repo, n, dir, created.current, args.values.has("--run-dir"));
  io.out(`Claimed ${run.repo}#${n} on this Host only (offline: no lease was written; \`ticket-runner resume ${n}\` online writes it).`);
  io.out(`Run directory: ${dir}`);
  const base = args.values.get("--base") ?? target.config.base ?? "main";
  // No network: the title this Host last read (board, online start), or a plain name, said so.
  const known = recallTitle(titlesFile(target.runRoot, target.repo), n);
  if (known.kind === "known") io.out(`Title: "${known.title}" (as this Host last read it, ${known.at}).`);
  else
    io.out(
      `No title for #${n} is known on this Host (${known.why}), so a new branch is named agent/${n}-ticket; rename it later with \`git branch -m\` if you like.`,
    );
  const title = known.kind === "known" ? known.title : "";
  const lane = await prepareLane({
    ws: workspace(target, io, null),
    ticket: n,
    title,
    base,
    offline: true,
    freshBranch: args.flags.has("--fresh-branch"),
    forceDelete: args.flags.has("--delete-branch-force"),
    say: io.out,
  });
  await recordLane(root, dir, { kind: "ok", run }, lane, io);
  return 0;
}

export const startCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: FLAGS, values: VALUES });
    const n = ticketArg(args, USAGE, "start");
    const target = resolveTarget(args, io, { command: "start", needsClone: true });
    // The network promise, kept at the call site: nothing below this line runs for --offline.
    if (args.flags.has("--offline")) return startOffline(n, args, target, io);

    const w = wireClaims(target, io, "person");
    // The base first: a base that is nowhere is refused before anything is claimed.
    const base = args.values.get("--base") ?? target.config.base ?? (await w.tracker.defaultBranch());
    const ws = workspace(target, io, w.token);
    await ws.fetchBase(base);
    const won = await w.gate.take(n, { takeOver: args.flags.has("--take-over"), runDir: args.values.get("--run-dir") });
    const name = `${target.repo.owner}/${target.repo.repo}#${n}`;
    io.out(`Claimed ${name}${won.claim.lease.takeover ? ` (${won.claim.lease.takeover.kind} of ${won.displaced.map((d) => d.comment.url).join(", ")})` : ""}.`);
    io.out(`Lease: ${won.claim.commentUrl}`);
    io.out(`Run directory: ${won.claim.runDir}`);
    if (won.archived) io.out(`The displaced local run was moved to ${won.archived}`);
    if (won.setAside) io.out(won.setAside.note);
    const unsaved = rememberTitles(titlesFile(target.runRoot, target.repo), [{ ticket: n, title: won.issue.title }], systemClock.now());
    if (unsaved) w.log.debug(`ticket title not kept for --offline: ${unsaved}`);
    try {
      const old = { freshBranch: args.flags.has("--fresh-branch"), forceDelete: args.flags.has("--delete-branch-force") };
      const lane = await cutLaneOnline(ws, n, won.issue.title, base, io, old);
      await recordLane(w.runRoot, won.claim.runDir, await w.runRoot.read(won.claim.runDir), lane, io);
      return 0;
    } catch (error) {
      // The claim stands (it is this person's); say how to pick the ticket up again.
      const why = error instanceof Error ? error.message : String(error);
      io.err(`${name} is claimed, but its worktree could not be made: ${why}`);
      io.err(`When that is fixed: ticket-runner resume ${n}   (or put it back: ticket-runner release ${n})`);
      return error instanceof Refusal ? 2 : 1;
    }
  },
};
